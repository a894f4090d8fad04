package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stunwatch.config.ConfigSource;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedRecord;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.KafkaBrokerExtension;
import io.stunwatch.testsupport.TopicContents;
import io.stunwatch.testsupport.Vcsim;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two vCenters, each with its own user, password and certificate, collected by one process: each has its own
 * session, checkpoint and transactional id, and one going away leaves the other collecting.
 */
class SeveralVcentersIT {

  private static final String UUID_A = "a0000000-0000-4000-8000-00000000000a";
  private static final String UUID_B = "b0000000-0000-4000-8000-00000000000b";

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.perClass();

  @TempDir
  Path dir;

  @Test
  void eachVcenterHasItsOwnLoginAndCheckpointAndOneGoingDownLeavesTheOtherCollecting() throws Exception {
    Vcsim a = Vcsim.start(true, "-uuid", UUID_A, "-username", "alice@vsphere.local", "-password", "pw-of-alice");
    try (Vcsim b = Vcsim.start(true, "-uuid", UUID_B, "-username", "bob@vsphere.local", "-password", "pw-of-bob")) {
      Files.writeString(dir.resolve("alice.pw"), "pw-of-alice\n");
      Files.writeString(dir.resolve("bob.pw"), "pw-of-bob\n");
      // both listen on 127.0.0.1: the credentials file tells them apart by port
      Path credentials = dir.resolve("vcenters.properties");
      Files.writeString(credentials, String.join("\n",
          "# one vCenter per host:port",
          entry(a, "username", "alice@vsphere.local"), entry(a, "password-file", dir.resolve("alice.pw").toString()),
          entry(a, "thumbprint", a.sha256()),
          entry(b, "username", "bob@vsphere.local"), entry(b, "password-file", dir.resolve("bob.pw").toString()),
          entry(b, "thumbprint", b.sha256())));
      VcenterConfig config = VcenterConfig.from(ConfigSource.of(Map.of(
          "vcenter.urls", a.sdk() + "," + b.sdk(), "vcenter.credentials-file", credentials.toString(),
          "vcenter.poll-interval", "200ms", "vcenter.inventory-interval", "2s",
          "vcenter.heartbeat-interval", "1s")), true);
      assertThat(config.toString()).doesNotContain("pw-of-");

      try (VcenterCollectors collectors = VcenterCollectors.start(config,
          Map.of("bootstrap.servers", KAFKA.bootstrapServers()), Clock.systemUTC(), new SimpleMeterRegistry())) {
        Await.until(Duration.ofSeconds(60), () -> checkpointed(UUID_A) && checkpointed(UUID_B),
            "a checkpoint of each vCenter", () -> "A " + checkpointed(UUID_A) + ", B " + checkpointed(UUID_B));
        VcsimAdmin siteB = new VcsimAdmin(b);
        int first = siteB.relocateAndPost(siteB.vms().get(0));
        int fromA = new VcsimAdmin(a).relocateAndPost(new VcsimAdmin(a).vms().get(0));
        Await.until(Duration.ofSeconds(60), () -> published(UUID_B).contains(first)
            && published(UUID_A).contains(fromA), "a migration of each vCenter",
            () -> "A published " + published(UUID_A) + " (waiting for " + fromA + "), B " + published(UUID_B)
                + " (waiting for " + first + ")");

        a.close(); // vCenter A goes away
        int second = siteB.relocateAndPost(siteB.vms().get(1));
        Await.until(Duration.ofSeconds(60), () -> published(UUID_B).contains(second),
            "vCenter B's migration after A went down",
            () -> "B published " + published(UUID_B) + ", waiting for " + second);
        VcenterCollector collectorA = collectors.collectors().get(0);
        Await.until(Duration.ofSeconds(60), () -> collectorA.reconnects() > 0, "A trying to log in again",
            () -> collectorA.reconnects() + " reconnects");
        assertThat(collectors.fatal().toCompletableFuture()).as("one vCenter down stops nothing").isNotDone();
        assertThat(collectors.collectors().get(1).reconnects()).as("B never lost its session").isZero();
      }
    } finally {
      a.close();
    }
  }

  private static String entry(Vcsim v, String field, String value) {
    return "127.0.0.1:" + v.sdk().getPort() + "." + field + "=" + value;
  }

  private boolean checkpointed(String uuid) {
    return read(Topics.VCENTER_CHECKPOINTS).stream().map(TypedRecord::value)
        .anyMatch(c -> c != null && uuid.equals(c.vcenterUuid()));
  }

  private List<Integer> published(String uuid) {
    return read(Topics.VCENTER_EVENTS).stream().map(TypedRecord::value).filter(e -> uuid.equals(e.vcenterUuid()))
        .map(e -> (int) e.eventKey()).toList();
  }

  private <V> List<TypedRecord<String, V>> read(Topic<String, V> topic) {
    return TopicContents.readAll(KAFKA.bootstrapServers(), topic);
  }
}
