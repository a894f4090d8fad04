package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.junit.jupiter.api.Test;

class VcenterCollectorTest {

  @Test
  void beingFencedIsRecognisedWhereverKafkaWrapsIt() {
    assertThat(VcenterCollector.fenced(new ProducerFencedException("epoch 3 is newer"))).isTrue();
    assertThat(VcenterCollector.fenced(new KafkaException("commit failed",
        new ProducerFencedException("epoch 3 is newer")))).isTrue();
    assertThat(VcenterCollector.fenced(new KafkaException("broker down"))).isFalse();
  }
}
