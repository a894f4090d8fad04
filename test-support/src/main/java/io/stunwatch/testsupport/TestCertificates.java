package io.stunwatch.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A test CA and certificates it signs, made by the real {@code openssl} as an operator would: PEM files (what the API
 * and Kafka's PEM options read) and a PKCS12 keystore (what a Kafka broker reads). Valid for two days.
 */
public final class TestCertificates {

  /** A CA: its certificate (what clients trust) and key. */
  public record Ca(Path certificate, Path key) {
  }

  /** A certificate signed by a CA, with its PKCS#8 key and the same pair in a PKCS12 keystore. */
  public record Leaf(Path certificate, Path key, Path keystore, String keystorePassword) {
  }

  private TestCertificates() {
  }

  /** A new CA in {@code dir}, named {@code name}. */
  public static Ca ca(Path dir, String name) {
    Path key = dir.resolve(name + "-ca.key");
    Path cert = dir.resolve(name + "-ca.pem");
    openssl(dir, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
        "-subj", "/CN=" + name + " test CA", "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-keyout", key.toString(), "-out", cert.toString());
    return new Ca(cert, key);
  }

  /** A certificate for {@code hosts} (DNS names, or IPs), signed by {@code ca}, for servers and clients. */
  public static Leaf leaf(Path dir, Ca ca, String name, String... hosts) {
    Path key = dir.resolve(name + ".key");
    Path csr = dir.resolve(name + ".csr");
    Path cert = dir.resolve(name + ".pem");
    Path ext = dir.resolve(name + ".ext");
    Path p12 = dir.resolve(name + ".p12");
    List<String> san = new ArrayList<>();
    for (String h : hosts) {
      san.add((h.matches("[0-9.]+|[0-9a-fA-F:]+:[0-9a-fA-F:]*") ? "IP:" : "DNS:") + h);
    }
    try {
      Files.writeString(ext, "subjectAltName=" + String.join(",", san) + "\n"
          + "extendedKeyUsage=serverAuth,clientAuth\nbasicConstraints=CA:FALSE\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    openssl(dir, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj",
        "/CN=" + (hosts.length > 0 ? hosts[0] : name), "-keyout", key.toString(), "-out", csr.toString());
    openssl(dir, "x509", "-req", "-in", csr.toString(), "-CA", ca.certificate().toString(), "-CAkey",
        ca.key().toString(), "-CAcreateserial", "-days", "2", "-extfile", ext.toString(), "-out", cert.toString());
    String password = "test-" + Long.toHexString(System.nanoTime());
    openssl(dir, "pkcs12", "-export", "-in", cert.toString(), "-inkey", key.toString(), "-certfile",
        ca.certificate().toString(), "-name", name, "-out", p12.toString(), "-passout", "pass:" + password);
    return new Leaf(cert, key, p12, password);
  }

  private static void openssl(Path dir, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(RealPeers.openssl().toString());
    cmd.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("openssl " + String.join(" ", args) + " failed:\n" + out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
