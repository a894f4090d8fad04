package io.stunwatch.api.notify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.config.ConfigSource;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WebhookConfigTest {

  @Test
  void unsetMeansNoWebhookAndAnHttpsUrlWithATokenIsOne() {
    assertThat(WebhookConfig.from(ConfigSource.of(Map.of())).enabled()).isFalse();
    WebhookConfig c = WebhookConfig.from(ConfigSource.of(Map.of("api.alert-webhook.url",
        "https://veba.lab.local/webhook", "api.alert-webhook.token", "s3cret-token-value",
        "api.alert-webhook.timeout", "3s")));
    assertThat(c.enabled()).isTrue();
    assertThat(c.timeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(c.toString()).doesNotContain("s3cret");
  }

  @Test
  void aUrlThatIsNotHttpOrCarriesCredentialsIsRefusedNamingTheKey() {
    assertThatThrownBy(() -> WebhookConfig.from(ConfigSource.of(Map.of("api.alert-webhook.url",
        "ftp://veba.lab.local/in")))).hasMessageContaining("api.alert-webhook.url")
        .hasMessageContaining("http or https");
    assertThatThrownBy(() -> WebhookConfig.from(ConfigSource.of(Map.of("api.alert-webhook.url",
        "https://admin:pw@veba.lab.local/in")))).hasMessageContaining("must not carry credentials");
  }
}
