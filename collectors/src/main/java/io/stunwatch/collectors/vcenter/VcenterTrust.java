package io.stunwatch.collectors.vcenter;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.Locale;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * How a vCenter's TLS certificate is verified: by the system trust store (default), by a CA file, by a pinned
 * SHA-256 thumbprint of the server certificate, or (only when asked for explicitly) not at all.
 */
public final class VcenterTrust {

  private VcenterTrust() {
  }

  /** The JVM's default trust store. */
  public static X509TrustManager system() {
    return fromKeyStore(null);
  }

  /** Certificates of a PEM or DER file (a CA bundle). */
  public static X509TrustManager caFile(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
      ks.load(null, null);
      int i = 0;
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        ks.setCertificateEntry("ca-" + i++, c);
      }
      if (i == 0) {
        throw new IOException(file + " holds no certificate");
      }
      return fromKeyStore(ks);
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot read CA certificates from " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Trusts exactly the server certificate whose SHA-256 thumbprint is {@code thumbprint} (hex, with or without
   * colons, any case), as {@code openssl x509 -fingerprint -sha256} or vSphere show it.
   */
  public static X509TrustManager pinned(String thumbprint) {
    String want = normalize(thumbprint);
    if (!want.matches("[0-9a-f]{64}")) {
      throw new IllegalArgumentException("a SHA-256 thumbprint has 64 hex digits, '" + thumbprint + "' does not");
    }
    return new X509TrustManager() {
      @Override
      public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("not a server");
      }

      @Override
      public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        String got = sha256(chain[0]);
        if (!got.equals(want)) {
          throw new CertificateException("server certificate SHA-256 " + colons(got) + " does not match the pinned "
              + colons(want));
        }
      }

      @Override
      public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
      }
    };
  }

  /** Trusts anything: only for {@code vcenter.insecure=true}, and logged loudly at every connect. */
  public static X509TrustManager insecure() {
    return new X509TrustManager() {
      @Override
      public void checkClientTrusted(X509Certificate[] chain, String authType) {
      }

      @Override
      public void checkServerTrusted(X509Certificate[] chain, String authType) {
      }

      @Override
      public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
      }
    };
  }

  /** Lower-case hex SHA-256 of a certificate's DER encoding. */
  public static String sha256(X509Certificate cert) throws CertificateException {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(cert.getEncoded()));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static String normalize(String thumbprint) {
    return thumbprint.trim().replace(":", "").replace(" ", "").toLowerCase(Locale.ROOT);
  }

  private static String colons(String hex) {
    return hex.toUpperCase(Locale.ROOT).replaceAll("(..)(?!$)", "$1:");
  }

  private static X509TrustManager fromKeyStore(KeyStore ks) {
    try {
      TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      f.init(ks);
      for (TrustManager tm : f.getTrustManagers()) {
        if (tm instanceof X509TrustManager x) {
          return x;
        }
      }
      throw new IllegalStateException("no X509TrustManager");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot build a trust manager: " + e.getMessage(), e);
    }
  }
}
