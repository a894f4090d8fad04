package io.stunwatch.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.config.ConfigException;
import io.stunwatch.config.ConfigSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerConfigTest {

  @TempDir
  Path dir;

  @Test
  void aSecuredBrokerReadsItsUsersWithTheirRolesAndPasswordFiles() throws Exception {
    Files.writeString(dir.resolve("worker.pw"), "worker-password-0123\n");
    Files.writeString(dir.resolve("svc.pw"), "service-password-0123\n");
    Files.writeString(dir.resolve("users"), "# user role password-file\nworker-1 worker worker.pw\n\nsvc service svc.pw\n");
    Files.writeString(dir.resolve("keystore.p12"), "x");
    BrokerConfig c = BrokerConfig.from(ConfigSource.of(Map.of("broker.ssl.keystore", dir.resolve("keystore.p12")
        .toString(), "broker.ssl.keystore-password", "pw", "broker.users-file", dir.resolve("users").toString())));
    assertThat(c.secured().users()).extracting(BrokerConfig.User::name, BrokerConfig.User::role)
        .containsExactly(Tuple.tuple("worker-1", BrokerConfig.Role.WORKER),
            Tuple.tuple("svc", BrokerConfig.Role.SERVICE));
    assertThat(c.secured().users().get(0).password()).isEqualTo("worker-password-0123");
    assertThat(c.toString()).doesNotContain("worker-password-0123").doesNotContain("=pw");
  }

  @Test
  void aBadUsersFileIsRefusedNamingTheFileAndLine() throws Exception {
    Files.writeString(dir.resolve("short.pw"), "short\n");
    Path users = dir.resolve("users");
    Files.writeString(users, "a admin short.pw\nb worker short.pw\nc vcenter missing.pw\njust-two fields\n");
    assertThatThrownBy(() -> BrokerConfig.from(ConfigSource.of(Map.of("broker.ssl.keystore", "k.p12",
        "broker.ssl.keystore-password", "pw", "broker.users-file", users.toString()))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(users + ":1").hasMessageContaining("role must be worker, vcenter, hosts or service")
        .hasMessageContaining(users + ":2").hasMessageContaining("fewer than 12 characters")
        .hasMessageContaining(users + ":3").hasMessageContaining("missing.pw")
        .hasMessageContaining(users + ":4").hasMessageContaining("expected '<user> <role> <password-file>'");
    assertThatThrownBy(() -> BrokerConfig.from(ConfigSource.of(Map.of("broker.users-file", users.toString()))))
        .hasMessageContaining("logins travel over TLS only");
  }

  @Test
  void theHostsRoleWritesHostSamplesAndBandwidthAndReadsTheHostInventoryOnly() {
    assertThat(BrokerAcls.of("hosts-1", BrokerConfig.Role.HOSTS))
        .extracting(b -> b.pattern().name() + " " + b.entry().operation())
        .containsExactlyInAnyOrder("stunwatch.host-vgpu-samples WRITE", "stunwatch.host-vgpu-samples DESCRIBE",
            "stunwatch.vmotion-bandwidth WRITE", "stunwatch.vmotion-bandwidth DESCRIBE",
            "stunwatch.host-inventory DESCRIBE", "stunwatch.host-inventory READ");
  }
}
