package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.VcenterCheckpoint;
import io.stunwatch.model.topic.Topics;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.junit.jupiter.api.Test;

class VcenterCollectorTest {

  private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");

  @Test
  void theCheckpointOfAHundredThousandStunnedVmsStaysFarBelowKafkasRecordLimit() {
    Map<String, Instant> lastStun = new HashMap<>();
    for (int i = 0; i < 100_000; i++) {
      // the worst case: every VM stunned within the last hour, none old enough to forget by time
      lastStun.put("vm-" + (100_000 + i), NOW.minusMillis(3_600_000L * i / 100_000));
    }
    VcenterCollector.prune(lastStun, NOW);
    VcenterCheckpoint c = new VcenterCheckpoint("f1e2d3c4-0000-4000-8000-000000000001", NOW, List.of(1L, 2L), NOW,
        lastStun, List.of());
    int bytes = Topics.VCENTER_CHECKPOINTS.encodeValue(c).length;
    assertThat(bytes).as("encoded checkpoint").isLessThan(256 * 1024);
    assertThat(lastStun).hasSize(VcenterCollector.MAX_REMEMBERED_STUNS)
        .as("the newest are kept").containsKey("vm-100000").doesNotContainKey("vm-199999");
  }

  @Test
  void aStunOlderThanTheLookbehindOfAnyCompletionToComeIsForgotten() {
    Map<String, Instant> lastStun = new HashMap<>(Map.of(
        "vm-1", NOW.minus(VcenterCollector.STUN_LOOKBEHIND).minusSeconds(1),
        "vm-2", NOW.minus(VcenterCollector.STUN_LOOKBEHIND).plusSeconds(1),
        "vm-3", NOW.minusSeconds(5)));
    VcenterCollector.prune(lastStun, NOW);
    assertThat(lastStun).containsOnlyKeys("vm-2", "vm-3");
  }

  @Test
  void beingFencedIsRecognisedWhereverKafkaWrapsIt() {
    assertThat(VcenterCollector.fenced(new ProducerFencedException("epoch 3 is newer"))).isTrue();
    assertThat(VcenterCollector.fenced(new KafkaException("commit failed",
        new ProducerFencedException("epoch 3 is newer")))).isTrue();
    assertThat(VcenterCollector.fenced(new KafkaException("broker down"))).isFalse();
  }
}
