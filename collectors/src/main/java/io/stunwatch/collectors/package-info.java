/**
 * Worker collectors (nvidia-smi, host vGPU, RDMA counters, training throughput) and the vCenter collector, each input in its own package. Arrives with issues #3 and #4.
 */
package io.stunwatch.collectors;
