package io.stunwatch.model;

/**
 * One raw cumulative counter as read from sysfs.
 *
 * @param value  the raw value; absent when {@link CounterState#UNAVAILABLE}. For {@code port_xmit_data} and
 *               {@code port_rcv_data} it counts 4-octet words, not bytes.
 * @param state  whether the value can be used for a rate
 * @param reason why the value is unavailable or saturated, e.g. {@code N/A (no PMA)} or
 *               {@code counters/ directory missing (vmw_pvrdma)}
 */
public record CounterReading(Long value, CounterState state, String reason) {

  public CounterReading {
    Checks.required(state, "state");
    Checks.nonNegative(value, "value");
    if (state == CounterState.UNAVAILABLE && value != null) {
      throw new IllegalArgumentException("an UNAVAILABLE counter has no value, was " + value);
    }
    if (state != CounterState.UNAVAILABLE && value == null) {
      throw new IllegalArgumentException("a " + state + " counter needs a value");
    }
  }

  public static CounterReading valid(long value) {
    return new CounterReading(value, CounterState.VALID, null);
  }

  public static CounterReading saturated(long value, String reason) {
    return new CounterReading(value, CounterState.SATURATED, reason);
  }

  public static CounterReading unavailable(String reason) {
    return new CounterReading(null, CounterState.UNAVAILABLE, Checks.requiredText(reason, "reason"));
  }
}
