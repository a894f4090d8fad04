package io.stunwatch.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's OpenSSH server as a child process on a loopback port, playing one host for ITs: its own host key, one
 * authorized key for the user running the test, and a directory put first on the PATH of its sessions (where a test
 * puts the commands the host has, such as a fake {@code nvidia-smi}). Its sessions read none of that user's shell
 * startup files: the host is the same on every machine. Missing sshd skips the IT, or fails it under
 * {@code STUNWATCH_STRICT=1}.
 */
public final class OpenSshServer implements AutoCloseable {

  private final Path dir;
  private final int port;
  private final Path hostKey;
  private Process process;

  private OpenSshServer(Path dir, int port, Path hostKey) {
    this.dir = dir;
    this.port = port;
    this.hostKey = hostKey;
  }

  /**
   * Starts sshd in {@code dir}: a new ECDSA host key there unless one is, {@code authorizedKey} (an OpenSSH public
   * key line) accepted, and {@code dir/bin} first on the sessions' PATH.
   */
  public static OpenSshServer start(Path dir, String authorizedKey) {
    try {
      Files.createDirectories(dir.resolve("bin"));
      Path hostKey = dir.resolve("ssh_host_ecdsa_key");
      if (!Files.exists(hostKey)) {
        keygen(hostKey);
      }
      Files.writeString(dir.resolve("authorized_keys"), authorizedKey.strip() + "\n");
      OpenSshServer s = new OpenSshServer(dir, Ports.reserve(), hostKey);
      s.launch();
      return s;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Makes an ECDSA key pair without a passphrase: {@code file} and {@code file.pub}. */
  public static void keygen(Path file) {
    run(List.of("ssh-keygen", "-q", "-t", "ecdsa", "-b", "256", "-N", "", "-C", "stunwatch-it", "-f",
        file.toString()));
  }

  /** Replaces the host key with a new one and restarts on the same port: a reinstalled host. */
  public void newHostKey() throws IOException {
    stopProcess();
    Files.deleteIfExists(hostKey);
    Files.deleteIfExists(Path.of(hostKey + ".pub"));
    keygen(hostKey);
    launch();
  }

  public int port() {
    return port;
  }

  /** The {@code known_hosts} line that pins this server's current key for {@code [127.0.0.1]:port}. */
  public String knownHostsLine() throws IOException {
    String[] pub = Files.readString(Path.of(hostKey + ".pub")).trim().split("\\s+");
    return "[127.0.0.1]:" + port + " " + pub[0] + " " + pub[1];
  }

  private void launch() throws IOException {
    if (isRoot()) {
      Files.createDirectories(Path.of("/run/sshd")); // privilege separation directory
    }
    Path config = dir.resolve("sshd_config");
    Files.writeString(config, String.join("\n",
        "Port " + port,
        "ListenAddress 127.0.0.1",
        "HostKey " + hostKey,
        "PidFile none",
        "AuthorizedKeysFile " + dir.resolve("authorized_keys"),
        "StrictModes no",
        "UsePAM no",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "PubkeyAuthentication yes",
        "PermitRootLogin prohibit-password",
        // SHLVL=1: bash then takes itself for a nested shell and reads no ~/.bashrc, which it otherwise does for
        // every command sshd starts; a real ESXi host runs no startup files of the test runner's user (see
        // OpenSshServerIT for what pyenv's there did)
        "SetEnv PATH=" + dir.resolve("bin") + ":/usr/local/bin:/usr/bin:/bin SHLVL=1",
        "LogLevel VERBOSE", ""));
    List<String> cmd = new ArrayList<>(List.of(RealPeers.sshd().toString(), "-D", "-e", "-f", config.toString()));
    process = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("sshd.log").toFile())).start();
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("sshd exited: " + Files.readString(dir.resolve("sshd.log")));
      }
      try (Socket s = new Socket("127.0.0.1", port)) {
        return;
      } catch (IOException notYet) {
        sleep();
      }
    }
    throw new IllegalStateException("sshd did not listen on " + port + " within 20 s");
  }

  private static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  private static void sleep() {
    try {
      Thread.sleep(50);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }


  private static void run(List<String> cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private void stopProcess() {
    if (process != null) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Kills sshd and every session it started. */
  @Override
  public void close() {
    stopProcess();
  }
}
