package io.stunwatch.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * govmomi's vCenter simulator (built from Debian's packages by {@code test-support/vcsim/build.sh}) as a child
 * process, for ITs. Missing Go or govmomi skips the IT, or fails it under {@code STUNWATCH_STRICT=1}.
 */
public final class Vcsim implements AutoCloseable {

  private final Process process;
  private final URI url;
  private final String sha256;

  private Vcsim(Process process, URI url, String sha256) {
    this.process = process;
    this.url = url;
    this.sha256 = sha256;
  }

  /** Starts vcsim on a free loopback port; {@code tls} serves https with a self-signed certificate. */
  public static Vcsim start(boolean tls, String... extraArgs) {
    Path bin = binary();
    List<String> cmd = new ArrayList<>(List.of(bin.toString(), "-l", "127.0.0.1:0"));
    if (tls) {
      cmd.add("-tls");
    }
    cmd.addAll(List.of(extraArgs));
    try {
      Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      URI url = null;
      String sha = null;
      String line;
      while ((line = r.readLine()) != null) {
        if (line.startsWith("VCSIM_URL=")) {
          url = URI.create(line.substring("VCSIM_URL=".length()));
          if (!tls) {
            break;
          }
        } else if (line.startsWith("VCSIM_SHA256=")) {
          sha = line.substring("VCSIM_SHA256=".length());
          break;
        }
      }
      if (url == null) {
        p.destroyForcibly();
        throw new IllegalStateException("vcsim exited without printing its URL");
      }
      return new Vcsim(p, url, sha);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + bin, e);
    }
  }

  /** The vcsim binary, built when missing (needs golang-go and golang-github-vmware-govmomi-dev). */
  public static synchronized Path binary() {
    Path root = SharedFixtures.repoRoot();
    Path bin = root.resolve("test-support/target/vcsim");
    Path build = root.resolve("test-support/vcsim/build.sh");
    if (RealPeers.onPath("go").isEmpty() || !Files.isDirectory(Path.of("/usr/share/gocode/src/github.com/vmware/govmomi"))) {
      if (!Files.isExecutable(bin)) {
        RealPeers.require("go and govmomi (Debian golang-go golang-github-vmware-govmomi-dev; ./test.sh installs them)",
            "no-such-go-for-vcsim");
      }
      return bin;
    }
    try {
      Process p = new ProcessBuilder("bash", build.toString()).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("building vcsim failed: " + out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return bin;
  }

  /** The SDK URL with its default credentials, e.g. {@code https://user:pass@127.0.0.1:PORT/sdk}. */
  public URI url() {
    return url;
  }

  /** The SHA-256 thumbprint of its certificate ({@code AB:CD:..}), when started with TLS. */
  public String sha256() {
    return sha256;
  }

  public String username() {
    return url.getUserInfo().split(":", 2)[0];
  }

  public String password() {
    return url.getUserInfo().split(":", 2)[1];
  }

  /** The SDK URL without credentials. */
  public URI sdk() {
    return URI.create(url.getScheme() + "://" + url.getHost() + ":" + url.getPort() + url.getPath());
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
