package io.stunwatch.model.topic;

import java.time.Instant;

/**
 * A decoded record of a typed topic.
 *
 * @param topic     topic name
 * @param partition partition
 * @param offset    offset
 * @param timestamp Kafka record timestamp
 * @param key       decoded key
 * @param value     decoded value; null for a tombstone
 */
public record TypedRecord<K, V>(String topic, int partition, long offset, Instant timestamp, K key, V value) {
}
