package io.stunwatch.collectors.worker;

import java.io.IOException;

/**
 * A whole file that a replay will not read, with what it is and what to give instead: a summary table, text with
 * no ids, a CSV whose columns are unknown. The replay names the file, publishes nothing from it, goes on with the
 * others and exits non-zero.
 */
public final class ReplayRefusedException extends IOException {

  private final String what;
  private final String advice;

  /**
   * @param what   what the file was seen to be, e.g. "nvidia-smi's summary table"
   * @param advice what to record or pass instead, one sentence
   */
  public ReplayRefusedException(String what, String advice) {
    super(what + ": " + advice);
    this.what = what;
    this.advice = advice;
  }

  public String what() {
    return what;
  }

  public String advice() {
    return advice;
  }
}
