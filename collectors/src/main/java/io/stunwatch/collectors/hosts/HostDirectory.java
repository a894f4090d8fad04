package io.stunwatch.collectors.hosts;

import java.util.Map;

/** Which hosts to follow now, and how to reach each. Called from the collector's timer thread. */
public interface HostDirectory extends AutoCloseable {

  /** The hosts to follow, by name. */
  Map<String, HostAddress> hosts();

  @Override
  default void close() {
  }
}
