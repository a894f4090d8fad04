package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.config.ConfigSource;
import java.util.Map;
import org.junit.jupiter.api.Test;

class VcenterConfigTest {

  private static VcenterConfig read(Map<String, String> values) {
    return VcenterConfig.from(ConfigSource.of(values), false);
  }

  @Test
  void anHttpUrlIsRefusedUnlessInsecureIsSet() {
    assertThatThrownBy(() -> read(Map.of("vcenter.urls", "http://vc01.example.com/sdk")))
        .hasMessageContaining("vcenter.urls").hasMessageContaining("https");
    assertThat(read(Map.of("vcenter.urls", "http://vc01.example.com/sdk", "vcenter.insecure", "true")).urls())
        .hasSize(1);
    assertThat(read(Map.of("vcenter.urls", "https://vc01.example.com/sdk")).urls()).hasSize(1);
  }

  @Test
  void aUrlThatFailsToParseIsNeverEchoedWithItsPassword() {
    assertThatThrownBy(() -> read(Map.of("vcenter.urls", "https://admin:S3cret!pw@vc01 example.com/sdk")))
        .hasMessageContaining("vcenter.urls").hasMessageNotContaining("S3cret").hasMessageContaining("****");
    assertThatThrownBy(() -> read(Map.of("vcenter.urls", "ftp://admin:S3cret@vc01.example.com/sdk")))
        .hasMessageNotContaining("S3cret");
    assertThat(VcenterConfig.redacted("https://u:p@ss@host:443/sdk?x=@y")).isEqualTo("https://****@host:443/sdk?x=@y");
    assertThat(VcenterConfig.redacted("https://host/sdk")).isEqualTo("https://host/sdk");
  }

  @Test
  void theLogTailIsEightMibByDefaultAndSetInKib() {
    assertThat(read(Map.of()).logTailBytes()).isEqualTo(8L * 1024 * 1024);
    assertThat(read(Map.of("vcenter.log-tail-kib", "128")).logTailBytes()).isEqualTo(128L * 1024);
    assertThatThrownBy(() -> read(Map.of("vcenter.log-tail-kib", "1"))).hasMessageContaining("vcenter.log-tail-kib");
  }
}
