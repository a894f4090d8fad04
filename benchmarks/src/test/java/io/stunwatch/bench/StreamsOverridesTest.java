package io.stunwatch.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

class StreamsOverridesTest {

  private static Properties base() {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "bench");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092");
    p.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, 0L);
    return p;
  }

  @Test
  void streamsAndPrefixedClientSettingsAreTakenInOrderTheLastOfAKeyWinning() {
    assertThat(StreamsOverrides.parse(List.of("max.task.idle.ms=-1", "main.consumer.max.poll.records=5000",
        "producer.linger.ms = 5", "topic.index.interval.bytes=4096", "max.task.idle.ms=10")))
        .containsExactly(Map.entry("max.task.idle.ms", "10"), Map.entry("main.consumer.max.poll.records", "5000"),
            Map.entry("producer.linger.ms", "5"), Map.entry("topic.index.interval.bytes", "4096"));
  }

  @Test
  void aKeyNoClientKnowsIsRefusedWithTheArgumentNamed() {
    assertThatThrownBy(() -> StreamsOverrides.parse(List.of("main.consumer.max.pol.records=5000")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--streams-config 'main.consumer.max.pol.records=5000'")
        .hasMessageContaining("'main.consumer.max.pol.records' is not a Kafka Streams setting");
    // A producer setting under a consumer's prefix is no consumer setting.
    assertThatThrownBy(() -> StreamsOverrides.parse(List.of("main.consumer.linger.ms=5")))
        .hasMessageContaining("is not a Kafka Streams setting");
    assertThatThrownBy(() -> StreamsOverrides.parse(List.of("max.task.idle.ms")))
        .hasMessageContaining("must be KEY=VALUE");
  }

  @Test
  void aValueTheClientRefusesIsRefusedBeforeTheRunWithTheSettingNamed() {
    assertThatThrownBy(() -> StreamsOverrides.applied(base(), Map.of("main.consumer.max.poll.records", "lots")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("max.poll.records").hasMessageContaining("lots");
    assertThatThrownBy(() -> StreamsOverrides.applied(base(), Map.of("num.stream.threads", "two")))
        .hasMessageContaining("num.stream.threads");
  }

  @Test
  void appliedSettingsReplaceTheBaseAndReachOnlyTheClientTheirPrefixNames() {
    Properties base = base();
    Properties p = StreamsOverrides.applied(base, Map.of("max.task.idle.ms", "-1",
        "main.consumer.max.poll.records", "5000"));
    StreamsConfig c = new StreamsConfig(p);
    assertThat(c.getLong(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG)).isEqualTo(-1L);
    assertThat(c.getMainConsumerConfigs("g", "c", 0).get("max.poll.records")).isEqualTo("5000");
    assertThat(c.getRestoreConsumerConfigs("c").get("max.poll.records")).isNotEqualTo("5000");
    // The processor's own settings are copied, not changed: the raw phase and later passes start from them again.
    assertThat(base.get(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG)).isEqualTo(0L);
  }
}
