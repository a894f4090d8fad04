package io.stunwatch.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.Callable;

/**
 * What the JIT compilers did while a benchmark pass ran. On 2 cores a compiler thread busy with the code a phase
 * runs last takes a good part of a core from it: the benchmarks warm a phase up until a pass leaves the compilers
 * quiet, and print what they used during the measured pass.
 */
final class Jit {

  /** The compiler share of a pass below which the JIT counts as settled. */
  static final double SETTLED_SHARE = 0.10;

  private Jit() {
  }

  /**
   * A pass's result and the compilers' time during it as a share of its wall time (of one core; above 1 when
   * several compiler threads were busy).
   */
  record Pass<T>(T result, double compilerShare) {

    boolean settled() {
      return compilerShare < SETTLED_SHARE;
    }
  }

  static <T> Pass<T> during(Callable<T> pass) throws Exception {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    long c0 = jit.getTotalCompilationTime();
    long t0 = System.nanoTime();
    T result = pass.call();
    double wallMs = (System.nanoTime() - t0) / 1e6;
    return new Pass<>(result, (jit.getTotalCompilationTime() - c0) / Math.max(1.0, wallMs));
  }
}
