package io.stunwatch.processor.readmodel;

import java.util.HashMap;
import java.util.Map;

/** Copy-on-write updates of the small immutable maps in state-store values. */
public final class Maps {

  private Maps() {
  }

  /**
   * {@code map} with {@code key} set to {@code value}, as a new map for the value's constructor to copy. A map of
   * that one key (a VM's one GPU, its one host: the common case, and paid on every sample) becomes
   * {@link Map#of(Object, Object)}, which {@link Map#copyOf} keeps as it is, rather than a hash map copied twice.
   */
  public static <V> Map<String, V> with(Map<String, V> map, String key, V value) {
    if (map.isEmpty() || map.size() == 1 && map.containsKey(key)) {
      return Map.of(key, value);
    }
    Map<String, V> next = new HashMap<>(map);
    next.put(key, value);
    return next;
  }
}
