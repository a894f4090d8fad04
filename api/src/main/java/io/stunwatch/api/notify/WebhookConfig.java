package io.stunwatch.api.notify;

import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigKeys;
import io.stunwatch.config.ConfigReader;
import io.stunwatch.config.ConfigSource;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * Where migration-under-load alerts go as CloudEvents, if anywhere.
 *
 * @param url     the receiver (an event broker, a VEBA or Knative endpoint), or null for none
 * @param token   a bearer token it wants, or null
 * @param timeout how long one try may take
 */
public record WebhookConfig(URI url, String token, Duration timeout) {

  public static final ConfigKey<String> URL = ConfigKeys.optionalString("api.alert-webhook.url",
      "Where the API posts each raise and resolution of a migration-under-load alert as a CloudEvent (JSON, structured "
          + "mode): an http or https URL, such as a VEBA or Knative broker's. Unset: no webhook. The API instances of "
          + "one application share the work; an event is retried until the receiver answers 2xx, and dropped, "
          + "logged and counted when it refuses it with another 4xx.");
  public static final ConfigKey<String> TOKEN = ConfigKeys.secret("api.alert-webhook.token",
      "Bearer token the alert webhook's receiver wants, if any (as a file: STUNWATCH_API_ALERT_WEBHOOK_TOKEN_FILE).");
  public static final ConfigKey<Duration> TIMEOUT = ConfigKeys.duration("api.alert-webhook.timeout",
      Duration.ofSeconds(10), Duration.ofMillis(100), Duration.ofMinutes(5),
      "How long one post to the alert webhook may take before it is tried again.");

  public static final List<ConfigKey<?>> KEYS = List.of(URL, TOKEN, TIMEOUT);

  /** No webhook. */
  public static final WebhookConfig NONE = new WebhookConfig(null, null, TIMEOUT.defaultValue());

  public static WebhookConfig from(ConfigSource source) {
    ConfigReader r = source.reader();
    String url = r.get(URL);
    URI uri = null;
    if (url != null) {
      try {
        uri = URI.create(url);
      } catch (IllegalArgumentException e) {
        r.check(false, URL, "is not a URL: " + e.getMessage());
      }
      r.check(uri == null || "http".equals(uri.getScheme()) || "https".equals(uri.getScheme()), URL,
          "must be an http or https URL");
      r.check(uri == null || uri.getHost() != null, URL, "names no host");
      r.check(uri == null || uri.getUserInfo() == null, URL,
          "must not carry credentials: give a token as api.alert-webhook.token");
    }
    WebhookConfig c = new WebhookConfig(uri, r.get(TOKEN), r.get(TIMEOUT));
    r.done();
    return c;
  }

  /** Whether alerts go anywhere. */
  public boolean enabled() {
    return url != null;
  }

  @Override
  public String toString() {
    return "WebhookConfig[url=" + url + ", token=" + (token == null ? "none" : "****") + ", timeout=" + timeout + "]";
  }
}
