package io.stunwatch.collectors.vcenter;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * vCenter's datastore HTTP interface ({@code /folder/<path>?dcPath=..&dsName=..}) for one session: the end of a
 * file with a Range request, and a directory's listing. The session cookie goes to the vCenter only: no redirect is
 * followed, wherever it points.
 */
final class DatastoreHttp {

  private static final Pattern LINK_TEXT = Pattern.compile("<a\\s[^>]*>\\s*([^<>/]+?)\\s*</a>",
      Pattern.CASE_INSENSITIVE);
  private static final Pattern CONTENT_RANGE = Pattern.compile("bytes\\s+(\\d+)-\\d+/(?:\\d+|\\*)");

  private final URL base;
  private final X509TrustManager trust;
  private final String sessionCookie;

  /**
   * @param base          the vCenter's SDK URL; only its scheme, host and port are used
   * @param trust         how its certificate is verified
   * @param sessionCookie the logged-in session's cookie
   */
  DatastoreHttp(URL base, X509TrustManager trust, String sessionCookie) {
    this.base = base;
    this.trust = trust;
    this.sessionCookie = sessionCookie;
  }

  /** The last {@code maxBytes} of a file, and where they start in it. */
  VcenterConnection.Tail tail(String dcPath, String datastore, String path, long maxBytes) throws IOException {
    HttpURLConnection c = open(dcPath, datastore, encodePath(path));
    c.setRequestProperty("Range", "bytes=-" + maxBytes);
    int status = c.getResponseCode();
    String what = "[" + datastore + "] " + path;
    if (status == 416) {
      return new VcenterConnection.Tail(new byte[0], 0); // an empty file has no last bytes
    }
    check(c, status, what, dcPath);
    try (InputStream in = c.getInputStream()) {
      if (status == 206) {
        long offset = rangeStart(c.getHeaderField("Content-Range"), what);
        return new VcenterConnection.Tail(in.readNBytes((int) Math.min(maxBytes, Integer.MAX_VALUE - 8)), offset);
      }
      return lastBytes(in, maxBytes); // the server ignored the range: keep only the end, reading it through
    }
  }

  /** The names in a directory's HTML listing, e.g. {@code vmware-3.log}; subdirectories left out. */
  List<String> directory(String dcPath, String datastore, String dir) throws IOException {
    String d = dir.isEmpty() || dir.endsWith("/") ? dir : dir + "/";
    HttpURLConnection c = open(dcPath, datastore, encodePath(d) + (d.isEmpty() ? "" : "/"));
    int status = c.getResponseCode();
    check(c, status, "[" + datastore + "] " + d, dcPath);
    byte[] page;
    try (InputStream in = c.getInputStream()) {
      page = in.readNBytes(4 * 1024 * 1024); // a listing, not a file: a VM directory holds a few dozen names
    }
    List<String> names = new ArrayList<>();
    Matcher m = LINK_TEXT.matcher(new String(page, StandardCharsets.UTF_8));
    while (m.find()) {
      names.add(m.group(1).trim());
    }
    return names;
  }

  private HttpURLConnection open(String dcPath, String datastore, String encodedPath) throws IOException {
    URL url = new URL(base.getProtocol(), base.getHost(), base.getPort(), "/folder/" + encodedPath + "?dcPath="
        + URLEncoder.encode(dcPath, StandardCharsets.UTF_8) + "&dsName="
        + URLEncoder.encode(datastore, StandardCharsets.UTF_8));
    HttpURLConnection c = (HttpURLConnection) url.openConnection();
    if (c instanceof HttpsURLConnection https) {
      try {
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, new TrustManager[] {trust}, null);
        https.setSSLSocketFactory(ctx.getSocketFactory());
      } catch (GeneralSecurityException e) {
        throw new IOException("TLS setup failed: " + e.getMessage(), e);
      }
    }
    // The session cookie is vCenter's: a redirect to anywhere else must not carry it, so none is followed.
    c.setInstanceFollowRedirects(false);
    c.setConnectTimeout(30_000);
    c.setReadTimeout(120_000);
    c.setRequestProperty("Cookie", sessionCookie);
    return c;
  }

  private void check(HttpURLConnection c, int status, String what, String dcPath) throws IOException {
    if (status == 404) {
      throw new FileNotFoundException(what + " in " + dcPath + ": not found");
    }
    if (status >= 300 && status < 400) {
      throw new IOException("GET " + what + ": HTTP " + status + " redirect to '"
          + VcenterConfig.redacted(String.valueOf(c.getHeaderField("Location")))
          + "' not followed: the session cookie is only for " + base.getHost());
    }
    if (status != 200 && status != 206) {
      throw new IOException("GET " + what + ": HTTP " + status);
    }
  }

  /** The first byte of a 206 answer, from {@code Content-Range: bytes START-END/TOTAL}. */
  static long rangeStart(String contentRange, String what) throws IOException {
    Matcher m = CONTENT_RANGE.matcher(contentRange == null ? "" : contentRange.trim());
    if (!m.matches()) {
      throw new IOException("GET " + what + ": HTTP 206 with Content-Range '" + contentRange + "'");
    }
    return Long.parseLong(m.group(1));
  }

  /** The last {@code max} bytes of a stream read to its end, in a ring: a 1 GiB answer costs {@code max} bytes. */
  static VcenterConnection.Tail lastBytes(InputStream in, long max) throws IOException {
    int size = (int) Math.min(max, Integer.MAX_VALUE - 8);
    byte[] ring = new byte[size];
    long total = 0;
    byte[] buf = new byte[64 * 1024];
    int n;
    while ((n = in.read(buf)) >= 0) {
      for (int i = 0; i < n; ) {
        int at = (int) (total % size);
        int k = Math.min(n - i, size - at);
        System.arraycopy(buf, i, ring, at, k);
        i += k;
        total += k;
      }
    }
    if (total <= size) {
      return new VcenterConnection.Tail(Arrays.copyOf(ring, (int) total), 0);
    }
    int at = (int) (total % size);
    byte[] out = new byte[size];
    System.arraycopy(ring, at, out, 0, size - at);
    System.arraycopy(ring, 0, out, size - at, at);
    return new VcenterConnection.Tail(out, total - size);
  }

  private static String encodePath(String path) {
    StringBuilder b = new StringBuilder();
    for (String part : path.split("/")) {
      if (b.length() > 0) {
        b.append('/');
      }
      b.append(URLEncoder.encode(part, StandardCharsets.UTF_8).replace("+", "%20"));
    }
    return b.toString();
  }
}
