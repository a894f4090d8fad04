package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.config.ConfigSource;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

  @TempDir
  Path dir;

  @Test
  void eachVcenterHasItsOwnLoginFromTheCredentialsFileAndTheRestFromTheGlobalKeys() throws Exception {
    Files.writeString(dir.resolve("vc01.pw"), "secret-01\n");
    Path file = dir.resolve("vcenters");
    Files.writeString(file, String.join("\n", "# per vCenter",
        "VC01.example.com.username=svc-01@vsphere.local",
        "vc01.example.com.password-file=" + dir.resolve("vc01.pw"),
        "vc02.example.com:8443.thumbprint=" + "AB".repeat(32)));
    VcenterConfig c = read(Map.of("vcenter.urls", "https://vc01.example.com/sdk,https://vc02.example.com:8443/sdk",
        "vcenter.credentials-file", file.toString(), "vcenter.username", "global@vsphere.local",
        "vcenter.password", "global-pw"));
    var vc01 = URI.create("https://vc01.example.com/sdk").toURL();
    var vc02 = URI.create("https://vc02.example.com:8443/sdk").toURL();
    assertThat(c.usernameFor(vc01)).isEqualTo("svc-01@vsphere.local");
    assertThat(c.passwordFor(vc01)).isEqualTo("secret-01");
    assertThat(c.usernameFor(vc02)).isEqualTo("global@vsphere.local");
    assertThat(c.passwordFor(vc02)).isEqualTo("global-pw");
    assertThat(c.toString()).doesNotContain("secret-01").doesNotContain("global-pw");
  }

  @Test
  void aBadCredentialsFileNamesItsLinesAndNeverItsSecrets() throws Exception {
    Path file = dir.resolve("vcenters");
    Files.writeString(file, String.join("\n", "vc01.example.com.password=hunter2", "vc01.example.com",
        "vc01.example.com.username=a", "vc01.example.com.username=b",
        "vc02.example.com.password-file=" + dir.resolve("missing.pw")));
    assertThatThrownBy(() -> read(Map.of("vcenter.credentials-file", file.toString())))
        .hasMessageContaining("vcenter.credentials-file")
        .hasMessageContaining(file + ":1: a password is not written here")
        .hasMessageContaining(file + ":2: expected HOST.FIELD=VALUE")
        .hasMessageContaining(file + ":4: vc01.example.com.username is given twice")
        .hasMessageContaining("vc02.example.com.password-file: cannot read")
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void liveCollectionNeedsALoginForEveryVcenter() {
    assertThatThrownBy(() -> VcenterConfig.from(ConfigSource.of(Map.of("vcenter.urls",
        "https://vc01.example.com/sdk", "vcenter.username", "u")), true))
        .hasMessageContaining("vcenter.password").hasMessageContaining("vc01.example.com");
  }
}
