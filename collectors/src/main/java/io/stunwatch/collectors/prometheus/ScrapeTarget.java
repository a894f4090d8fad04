package io.stunwatch.collectors.prometheus;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * One exporter to scrape, or one recorded page to replay.
 *
 * @param vm     the VM its GPUs belong to, by UUID or name, when the configuration says so ({@code NAME=URL}); null
 *               to identify it from the page's labels
 * @param source the URL, or the replayed file
 */
public record ScrapeTarget(String vm, String source) {

  /** Reads {@code URL} or {@code VM=URL}, where VM is the VM's UUID or name in vCenter. */
  public static ScrapeTarget parse(String raw) {
    String t = raw.trim();
    int eq = t.indexOf('=');
    int scheme = t.indexOf("://");
    String vm = null;
    String url = t;
    if (eq > 0 && (scheme < 0 || eq < scheme)) {
      vm = t.substring(0, eq).trim();
      url = t.substring(eq + 1).trim();
    }
    URI u;
    try {
      u = URI.create(url);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + url + "' is not a URL: " + e.getMessage());
    }
    if (!"http".equals(u.getScheme()) && !"https".equals(u.getScheme()) || u.getHost() == null) {
      throw new IllegalArgumentException("'" + url + "' is not an http(s) URL with a host");
    }
    return new ScrapeTarget(vm == null || vm.isEmpty() ? null : vm, url);
  }

  /** The host of the URL, the guest's host name when nothing else names the VM; null for a file. */
  public String host() {
    try {
      URI u = URI.create(source);
      return u.getScheme() == null ? null : u.getHost();
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * The URL without its user information: what logs and samples show, as a target may carry basic-auth credentials
   * ({@code http://user:secret@host/metrics}).
   */
  public String redacted() {
    try {
      URI u = URI.create(source);
      if (u.getRawUserInfo() == null) {
        return source;
      }
      return new URI(u.getScheme(), null, u.getHost(), u.getPort(), u.getPath(), u.getQuery(), null).toString();
    } catch (IllegalArgumentException | URISyntaxException e) {
      return source;
    }
  }

  @Override
  public String toString() {
    return vm == null ? redacted() : vm + "=" + redacted();
  }
}
