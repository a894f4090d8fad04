package io.stunwatch.collectors.worker;

/**
 * One worker input (nvidia-smi, host vGPU, RDMA, throughput) running on its own thread and publishing to a
 * {@link SampleSink}. Implementations are named by technology: {@code NvidiaSmiStreamingSource},
 * {@code SysfsRdmaSource}, ...
 */
public interface CollectorSource extends AutoCloseable {

  /** Short name for logs and thread names. */
  String name();

  /** Starts sampling in the background; returns at once. */
  void start();

  /** Stops sampling and releases what it holds (child processes, files); idempotent. */
  @Override
  void close();
}
