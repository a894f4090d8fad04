package io.stunwatch.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs the real kcat against a broker. */
public final class Kcat {

  private final Path binary;
  private final String bootstrap;

  public Kcat(Path binary, String bootstrapServers) {
    this.binary = binary;
    this.bootstrap = bootstrapServers;
  }

  /** kcat found on the PATH (skipping or failing the test per {@link RealPeers}), against {@code bootstrap}. */
  public static Kcat against(String bootstrapServers) {
    return new Kcat(RealPeers.kcat(), bootstrapServers);
  }

  /**
   * Runs {@code kcat -b BOOTSTRAP ARGS} with {@code stdin} as its input and waits for it.
   *
   * @throws AssertionError when it does not finish within {@code timeout}
   */
  public Result run(byte[] stdin, Duration timeout, String... args) {
    List<String> cmd = new ArrayList<>(List.of(binary.toString(), "-b", bootstrap));
    cmd.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(cmd).start();
      CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> readAll(p.getInputStream()));
      CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> readAll(p.getErrorStream()));
      try (OutputStream in = p.getOutputStream()) {
        if (stdin != null) {
          in.write(stdin);
        }
      }
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("kcat " + cmd + " did not finish within " + timeout);
      }
      return new Result(p.exitValue(), out.join(), new String(err.join(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  private static byte[] readAll(InputStream in) {
    try (in) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** What kcat printed and returned. */
  public record Result(int exitCode, byte[] stdout, String stderr) {
    public String stdoutText() {
      return new String(stdout, StandardCharsets.UTF_8);
    }

    /** Fails with kcat's stderr unless it exited 0. */
    public Result assertOk() {
      if (exitCode != 0) {
        throw new AssertionError("kcat exited " + exitCode + ": " + stderr);
      }
      return this;
    }
  }
}
