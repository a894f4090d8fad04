package io.stunwatch.model;

/** Whether a raw counter can be turned into a rate. */
public enum CounterState {
  /** A usable cumulative value. */
  VALID,
  /** Latched at its maximum (32-bit PMA counters stop at all ones): no rate can be derived from it. */
  SATURATED,
  /** Not exposed by this device or driver: unknown, never zero. */
  UNAVAILABLE
}
