package io.stunwatch.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fake hosts are hermetic: a command run over Debian's real OpenSSH server sees the PATH the server sets and
 * nothing from the startup files of the user running the tests. bash reads {@code ~/.bashrc} for every command sshd
 * starts; on a machine whose {@code ~/.bashrc} runs {@code pyenv init}, each command takes pyenv's rehash lock, and
 * a session killed while holding it (as a test's host is) leaves it behind: from then on every command on every
 * fake host waits 60 s for it, printing nothing.
 */
class OpenSshServerIT {

  @TempDir
  Path dir;

  @Test
  void aCommandSeesTheServersPathAndNoneOfTheUsersStartupFiles() throws Exception {
    RealPeers.sshd();
    Path key = dir.resolve("id_ecdsa");
    OpenSshServer.keygen(key);
    Path home = dir.resolve("host");
    try (OpenSshServer server = OpenSshServer.start(home, Files.readString(Path.of(key + ".pub")))) {
      Path knownHosts = dir.resolve("known_hosts");
      Files.writeString(knownHosts, server.knownHostsLine() + "\n");
      Process ssh = new ProcessBuilder(List.of("ssh", "-F", "/dev/null", "-i", key.toString(), "-p",
          String.valueOf(server.port()), "-o", "UserKnownHostsFile=" + knownHosts, "-o", "StrictHostKeyChecking=yes",
          "-o", "BatchMode=yes", System.getProperty("user.name") + "@127.0.0.1", "echo \"PATH=$PATH\""))
          .redirectErrorStream(true).start();
      String out = new String(ssh.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(ssh.waitFor(60, TimeUnit.SECONDS)).as("ssh ended: %s", out).isTrue();
      assertThat(ssh.exitValue()).as(out).isZero();
      assertThat(out.lines().filter(l -> l.startsWith("PATH="))).containsExactly(
          "PATH=" + home.resolve("bin") + ":/usr/local/bin:/usr/bin:/bin");
    }
  }
}
