package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stunwatch.config.ConfigSource;
import io.stunwatch.metrics.Meters;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedRecord;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.KafkaBrokerExtension;
import io.stunwatch.testsupport.TopicContents;
import io.stunwatch.testsupport.Vcsim;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The collector against a vcsim that answers as a newer vCenter does, with the ServiceContent properties that
 * yavijava's vim25 6.0 binding does not know: the collector logs in and collects, and counts what it skipped.
 */
class NewerApiVcenterIT {

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.perClass();

  @Test
  void propertiesNewerThanTheBindingAreSkippedAndCountedAndCollectionGoesOn() throws Exception {
    try (Vcsim vcsim = Vcsim.start(true, "-newer-api")) {
      VcenterConfig config = VcenterConfig.from(ConfigSource.of(Map.of(
          "vcenter.urls", vcsim.sdk().toString(), "vcenter.username", vcsim.username(),
          "vcenter.password", vcsim.password(), "vcenter.thumbprints", "127.0.0.1=" + vcsim.sha256(),
          "vcenter.poll-interval", "200ms", "vcenter.inventory-interval", "2s")), true);
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (VcenterCollectors collectors = VcenterCollectors.start(config,
          Map.of("bootstrap.servers", KAFKA.bootstrapServers()), Clock.systemUTC(), registry)) {
        VcsimAdmin site = new VcsimAdmin(vcsim);
        int key = site.relocateAndPost(site.vms().get(0));
        Await.until(Duration.ofSeconds(60), () -> TopicContents.readAll(KAFKA.bootstrapServers(),
            Topics.VCENTER_EVENTS).stream().map(TypedRecord::value).anyMatch(e -> e.eventKey() == key),
            "the migration, read through answers the binding only partly knows",
            () -> "event keys on the topic: " + TopicContents.readAll(KAFKA.bootstrapServers(), Topics.VCENTER_EVENTS)
                .stream().map(r -> r.value().eventKey()).toList() + ", waiting for " + key);
        assertThat(TopicContents.readAll(KAFKA.bootstrapServers(), Topics.VM_INVENTORY)).isNotEmpty();
        assertThat(collectors.collectors().get(0).reconnects()).as("no answer failed").isZero();
        // vcsim's ServiceContent has six managers newer than API 6.0
        assertThat(registry.get(Meters.VCENTER_ELEMENTS_SKIPPED).functionCounter().count())
            .isGreaterThanOrEqualTo(6);
      }
    }
  }
}
