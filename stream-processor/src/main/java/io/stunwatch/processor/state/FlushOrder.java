package io.stunwatch.processor.state;

import java.io.File;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Deferred stores of one task that reach the stores beneath in a fixed order at each commit: whichever of them
 * Kafka Streams flushes first writes the pending values of all of them, in this order, and the others then have
 * nothing left to write.
 *
 * <p>Why: an iterator over a deferred store sees the last commit, and the API lists alerts and migrations by
 * iterating. A migration and its alert are written in one step, so at any moment a reader must find either both or
 * the alert alone: with the alerts first, a reader that lists a migration as under load after the commit's rows are
 * written finds its alert in the alerts list too. Kafka Streams flushes a task's stores in the order they were
 * registered, which follows the topology's processors and hash order within each, not a contract.
 *
 * <p>One instance serves every task of one built topology; a task is known by its state directory, which no two
 * tasks of any instance share. Members join when their store is initialized and leave when it is closed.
 */
public final class FlushOrder {

  /** What a member does when its turn comes: writes its pending values to the store beneath. */
  interface Member {
    String name();

    void writeOwnPending();
  }

  private final List<String> names;
  private final Map<File, Map<String, Member>> byTask = new ConcurrentHashMap<>();

  /** The stores named, flushed in this order. */
  public FlushOrder(String... names) {
    this.names = List.of(names);
  }

  /** The store names, in flush order. */
  public List<String> names() {
    return names;
  }

  /** Refuses a store this order does not name: it would never be flushed in turn. */
  void requireNamed(String name) {
    if (!names.contains(name)) {
      throw new IllegalArgumentException(name + " is not one of " + names);
    }
  }

  void join(File task, Member member) {
    requireNamed(member.name());
    byTask.computeIfAbsent(task, t -> new ConcurrentHashMap<>()).put(member.name(), member);
  }

  void leave(File task, Member member) {
    byTask.computeIfPresent(task, (t, members) -> {
      members.remove(member.name(), member);
      return members.isEmpty() ? null : members;
    });
  }

  /** Writes the pending values of every member of {@code task}, in order. */
  void flush(File task) {
    Map<String, Member> members = byTask.get(task);
    if (members == null) {
      return;
    }
    for (String name : names) {
      Member m = members.get(name);
      if (m != null) {
        m.writeOwnPending();
      }
    }
  }
}
