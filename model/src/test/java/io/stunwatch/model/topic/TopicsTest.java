package io.stunwatch.model.topic;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Collectors;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;

class TopicsTest {

  @Test
  void everyTopicIsUniqueAndPrefixed() {
    assertThat(Topics.ALL).extracting(Topic::name).doesNotHaveDuplicates()
        .allMatch(n -> n.startsWith(Topics.PREFIX));
    assertThat(Topics.ALL.stream().map(t -> t.valueSerde().schemaName()).collect(Collectors.toSet()))
        .hasSameSizeAs(Topics.ALL);
  }

  @Test
  void stateTopicsAreCompactedAndStreamsAreDeletedByAge() {
    assertThat(Topics.VM_INVENTORY.topicConfigs())
        .containsEntry(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
    assertThat(Topics.MIGRATION_IMPACTS.cleanup()).isEqualTo(Topic.Cleanup.COMPACT);
    assertThat(Topics.VCENTER_CHECKPOINTS.cleanup()).isEqualTo(Topic.Cleanup.COMPACT);
    assertThat(Topics.GPU_SAMPLES.topicConfigs())
        .containsEntry(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE)
        .containsEntry(TopicConfig.RETENTION_MS_CONFIG, String.valueOf(7L * 24 * 3600 * 1000));
  }

  @Test
  void byNameFindsCatalogTopicsOnly() {
    assertThat(Topics.byName("stunwatch.gpu-samples")).contains(Topics.GPU_SAMPLES);
    assertThat(Topics.byName("gpu-samples")).isEmpty();
  }
}
