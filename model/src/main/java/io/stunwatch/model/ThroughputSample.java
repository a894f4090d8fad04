package io.stunwatch.model;

import io.stunwatch.model.json.Schema;
import java.time.Instant;

/**
 * Training throughput read from a job's log (tf_cnn_benchmarks, Horovod, or a configured pattern).
 *
 * @param vmId      canonical SMBIOS UUID of the VM running the job; the Kafka key
 * @param hostname  guest hostname
 * @param timestamp when the line was logged, or read when the line has no time
 * @param job       job name: the configured one, or the log file's name
 * @param scope     per-step rate of this worker, or the job's total
 * @param value     throughput, in {@code unit}
 * @param unit      e.g. {@code images/sec}
 */
@Schema(name = "throughput-sample")
public record ThroughputSample(
    String vmId,
    String hostname,
    Instant timestamp,
    String job,
    ThroughputScope scope,
    double value,
    String unit) implements VmInput {

  public ThroughputSample {
    Checks.requiredText(vmId, "vmId");
    Checks.required(timestamp, "timestamp");
    Checks.requiredText(job, "job");
    Checks.required(scope, "scope");
    Checks.nonNegative(value, "value");
    Checks.requiredText(unit, "unit");
  }

  /** Which throughput a line reports. */
  public enum ThroughputScope {
    /** One worker's rate for the last step(s), e.g. {@code images/sec: 245.3 +/- 0.0}. */
    STEP,
    /** The whole job's rate, e.g. {@code total images/sec: 1953.42}. */
    TOTAL
  }
}
