package io.stunwatch.processor.readmodel;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.kafka.streams.KeyValue;

/**
 * How a reader puts a VM's open window or history block ({@link VmLive}) together with the closed ones of its store:
 * the store's windows in order, with the open one in place of the store's copy of the same start (an earlier format
 * left it there, or a window was reopened) or in its place in the order.
 */
public final class LiveReads {

  private LiveReads() {
  }

  /**
   * The windows of {@code stored} (by start, ascending, as a window store's fetch gives them) and the open one when it
   * starts within {@code [from, to]}, ascending by start.
   *
   * @param openStart the open window's start, epoch ms; ignored when {@code open} is null
   */
  public static <V> List<KeyValue<Long, V>> merged(Iterator<KeyValue<Long, V>> stored, long openStart, V open,
      long from, long to) {
    boolean pending = open != null && openStart >= from && openStart <= to;
    List<KeyValue<Long, V>> out = new ArrayList<>();
    while (stored.hasNext()) {
      KeyValue<Long, V> kv = stored.next();
      if (pending && kv.key >= openStart) {
        out.add(KeyValue.pair(openStart, open));
        pending = false;
        if (kv.key == openStart) {
          continue;
        }
      } else if (open != null && kv.key == openStart) {
        continue;
      }
      out.add(kv);
    }
    if (pending) {
      out.add(KeyValue.pair(openStart, open));
    }
    return out;
  }
}
