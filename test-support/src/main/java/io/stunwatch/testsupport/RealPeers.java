package io.stunwatch.testsupport;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds the real programs ITs talk to (kcat, later vcsim and Prometheus). When one is missing, the IT is skipped,
 * or fails when {@code STUNWATCH_STRICT=1} (as in CI), so a green CI run proves the peers were really there.
 */
public final class RealPeers {

  private RealPeers() {
  }

  /** True when {@code STUNWATCH_STRICT} is {@code 1} or {@code true}. */
  public static boolean strict() {
    String v = System.getenv("STUNWATCH_STRICT");
    return v != null && (v.equals("1") || v.equalsIgnoreCase("true"));
  }

  /** The real kcat (Debian package {@code kafkacat}, which installs it as {@code kcat} and {@code kafkacat}). */
  public static Path kcat() {
    return require("kcat (Debian package kafkacat; ./test.sh installs it)", "kcat", "kafkacat");
  }

  /** The real Prometheus server (Debian package {@code prometheus}; ./test.sh installs it). */
  public static Path prometheus() {
    return require("prometheus (Debian package prometheus; ./test.sh installs it)", "prometheus");
  }

  /** Prometheus' {@code promtool}, from the same Debian package. */
  public static Path promtool() {
    return require("promtool (Debian package prometheus; ./test.sh installs it)", "promtool");
  }

  /** Alertmanager's {@code amtool}, the configuration checker (Debian package prometheus-alertmanager). */
  public static Path amtool() {
    return require("amtool (Debian package prometheus-alertmanager; ./test.sh installs it)", "amtool");
  }

  /** systemd's {@code systemd-analyze}, which rates a unit's sandboxing (Debian package systemd). */
  public static Path systemdAnalyze() {
    return require("systemd-analyze (Debian package systemd; ./test.sh installs it)", "systemd-analyze");
  }

  /** {@code openssl}, which the simulated vCenter's image runs to make its certificate. */
  public static Path openssl() {
    return require("openssl (Debian package openssl; ./test.sh installs it)", "openssl");
  }

  /** Chromium, the real browser the console's tests drive headless (Debian package chromium). */
  public static Path chromium() {
    return require("chromium (Debian package chromium; ./test.sh installs it)", "chromium", "chromium-browser");
  }

  /**
   * Debian's OpenSSH server ({@code openssh-server}), at its absolute path as sshd requires to re-execute itself:
   * {@code /usr/sbin} is not on every user's PATH. Skips or fails the test when it is missing.
   */
  public static Path sshd() {
    Path sshd = Path.of("/usr/sbin/sshd");
    if (Files.isExecutable(sshd)) {
      return sshd;
    }
    return require("sshd (Debian package openssh-server)", "sshd");
  }

  /** The first of {@code names} found on the PATH; skips or fails the test when none is. */
  public static Path require(String what, String... names) {
    Optional<Path> found = onPath(names);
    if (found.isPresent()) {
      return found.get();
    }
    String message = "real peer not found on PATH: " + what;
    if (strict()) {
      Assertions.fail(message + " (STUNWATCH_STRICT=1, so this fails instead of skipping)");
    }
    Assumptions.abort(message);
    throw new AssertionError("unreachable");
  }

  /** The first of {@code names} on the PATH, if any. */
  public static Optional<Path> onPath(String... names) {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String name : names) {
      for (String dir : path.split(File.pathSeparator)) {
        Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
        if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
          return Optional.of(candidate);
        }
      }
    }
    return Optional.empty();
  }
}
