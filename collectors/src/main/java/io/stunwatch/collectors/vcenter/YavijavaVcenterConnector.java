package io.stunwatch.collectors.vcenter;

import com.vmware.vim25.mo.ServiceInstance;
import com.vmware.vim25.ws.CustomSSLTrustContextCreator;
import java.io.IOException;
import java.net.URL;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * {@link VcenterConnector} over the yavijava vim25 SOAP binding. TLS is verified by the given trust manager (see
 * {@link VcenterTrust}); the password is held only in memory and never logged (yavijava logs no SOAP bodies at the
 * levels Stunwatch enables).
 */
public final class YavijavaVcenterConnector implements VcenterConnector {

  static {
    YavijavaTolerantClient.install(); // before any connection: a vCenter 8 answer must not fail the login
  }

  private final URL sdkUrl;
  private final String username;
  private final char[] password;
  private final X509TrustManager trust;

  /**
   * @param sdkUrl   e.g. {@code https://vc01.example.com/sdk}; any user info in it is ignored
   * @param username the vCenter user
   * @param password its password
   * @param trust    how the server certificate is verified
   */
  public YavijavaVcenterConnector(URL sdkUrl, String username, char[] password, X509TrustManager trust) {
    this.sdkUrl = withoutUserInfo(sdkUrl);
    this.username = username;
    this.password = password.clone();
    this.trust = trust;
  }

  @Override
  public String url() {
    return sdkUrl.toString();
  }

  @Override
  public long skippedElements() {
    return YavijavaTolerantClient.skipped(sdkUrl);
  }

  @Override
  public VcenterConnection connect() throws IOException {
    try {
      ServiceInstance si;
      // yavijava caches the SSLContext of the FIRST trust manager it is given, process-wide, and uses it for every
      // later connection: a second vCenter would be verified against the first one's pin or CA. Reset the cache
      // for each login, under a lock; each connection then keeps its own socket factory.
      synchronized (CustomSSLTrustContextCreator.class) {
        CustomSSLTrustContextCreator.setContextAlreadyCreated(false);
        si = new ServiceInstance(sdkUrl, username, new String(password), (TrustManager) trust, 30_000, 120_000);
      }
      return new YavijavaVcenterConnection(si, sdkUrl, trust);
    } catch (IOException e) {
      throw new IOException("cannot log in to " + sdkUrl + ": " + rootMessage(e), e);
    } catch (RuntimeException e) {
      throw new IOException("cannot log in to " + sdkUrl + ": " + rootMessage(e), e);
    }
  }

  /** The message of {@code e}, with its root cause when that is another exception. */
  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + t + ")";
  }

  private static URL withoutUserInfo(URL u) {
    try {
      return new URL(u.getProtocol(), u.getHost(), u.getPort(), u.getFile());
    } catch (IOException e) {
      throw new IllegalArgumentException(e);
    }
  }
}
