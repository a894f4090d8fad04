package io.stunwatch.processor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;

class RestoreCountsTest {

  final TopicPartition p0 = new TopicPartition("app-vm-load-current-changelog", 0);
  final TopicPartition p1 = new TopicPartition("app-vm-load-current-changelog", 1);

  @Test
  void countsWhatActiveTasksRestoreAndStandbysLoadApartByStore() {
    RestoreCounts c = new RestoreCounts();
    c.onRestoreStart(p0, "vm-load-current", 0, 500);
    c.onBatchRestored(p0, "vm-load-current", 199, 200);
    c.onBatchRestored(p0, "vm-load-current", 499, 300);
    c.onRestoreEnd(p0, "vm-load-current", 500);
    c.onUpdateStart(p1, "vm-load-current", 0);
    c.onBatchLoaded(p1, "vm-load-current", new TaskId(0, 1), 41, 42, 100);
    c.onRestoreStart(p0, "alerts", 7, 7);

    assertThat(c.count("vm-load-current", false)).isEqualTo(500);
    assertThat(c.count("vm-load-current", true)).isEqualTo(42);
    assertThat(c.count("alerts", false)).as("a store that started a restore is listed, at 0").isZero();
    assertThat(c.count("migrations", false)).as("one never restored").isZero();
    Map<String, Long> seen = new HashMap<>();
    c.forEachStore((store, standby) -> seen.put(store + (standby ? "/standby" : "/active"), c.count(store, standby)));
    assertThat(seen).containsOnly(Map.entry("vm-load-current/active", 500L), Map.entry("vm-load-current/standby", 42L),
        Map.entry("alerts/active", 0L));
  }
}
