package io.stunwatch.collectors.worker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs a short-lived command (a snapshot, not a stream) with a time limit. */
public final class Commands {

  private static final int MAX_OUTPUT = 32 * 1024 * 1024;

  private Commands() {
  }

  /**
   * Runs {@code command} and returns its standard output.
   *
   * @throws IOException naming the command when it cannot start, runs past {@code timeout} or exits non-zero (with
   *                     the start of its standard error)
   */
  public static byte[] run(List<String> command, Duration timeout) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).start();
    CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> {
      try {
        return p.getErrorStream().readNBytes(4096);
      } catch (IOException e) {
        return new byte[0];
      }
    });
    byte[] out = p.getInputStream().readNBytes(MAX_OUTPUT);
    if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", command) + " did not finish within " + timeout);
    }
    if (p.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + " exited " + p.exitValue() + ": "
          + InputParseException.quote(new String(err.join(), StandardCharsets.UTF_8).strip(), 300));
    }
    return out;
  }
}
