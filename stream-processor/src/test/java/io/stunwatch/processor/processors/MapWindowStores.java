package io.stunwatch.processor.processors;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;

/** Window stores over a map, for processors run on a {@code MockProcessorContext}. */
final class MapWindowStores {

  private MapWindowStores() {
  }

  /**
   * A window store over a map: Streams' own window stores need its internal processor context, which
   * {@link MockProcessorContext} does not give. Only what the processor calls is answered: a point fetch, and a put
   * of what {@code stored} makes of the value.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static <S extends WindowStore> S of(Class<S> type, String name,
      UnaryOperator<Object> stored) {
    Map<String, Object> windows = new HashMap<>();
    return (S) Proxy.newProxyInstance(MapWindowStores.class.getClassLoader(),
        new Class<?>[] {type}, (proxy, method, args) -> switch (method.getName()) {
          case "name", "toString" -> name;
          case "init", "flush", "close" -> null;
          case "persistent" -> false;
          case "isOpen" -> true;
          case "fetch" -> {
            if (args.length == 3 && args[1] instanceof Long from && args[2] instanceof Long to) {
              // one key's range, in start order (the history's writer looks for blocks to delete)
              List<KeyValue<Long, Object>> in = new ArrayList<>();
              windows.forEach((k, v) -> {
                long start = Long.parseLong(k.substring(k.lastIndexOf('@') + 1));
                if (k.startsWith(args[0] + "@") && start >= from && start <= to) {
                  in.add(KeyValue.pair(start, v));
                }
              });
              in.sort(Comparator.comparing(kv -> kv.key));
              yield iterator(in);
            }
            if (args.length != 2 || !(args[1] instanceof Long)) {
              throw new UnsupportedOperationException("fetch" + Arrays.toString(args));
            }
            yield windows.get(args[0] + "@" + args[1]);
          }
          case "put" -> {
            if (args[1] == null) {
              windows.remove(args[0] + "@" + args[2]);
            } else {
              windows.put(args[0] + "@" + args[2], stored.apply(args[1]));
            }
            yield null;
          }
          case "hashCode" -> System.identityHashCode(proxy);
          case "equals" -> proxy == args[0];
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }

  private static WindowStoreIterator<Object> iterator(List<KeyValue<Long, Object>> in) {
    Iterator<KeyValue<Long, Object>> it = in.iterator();
    return new WindowStoreIterator<>() {
      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public KeyValue<Long, Object> next() {
        return it.next();
      }

      @Override
      public Long peekNextKey() {
        throw new UnsupportedOperationException();
      }

      @Override
      public void close() {
      }
    };
  }

}
