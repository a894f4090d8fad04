/**
 * The Kafka Streams correlation topology: per-migration impact records, migration-under-load alerts, the stun-time model. Arrives with issue #5.
 */
package io.stunwatch.processor;
