package io.stunwatch.api.notify;

/**
 * Sends each change of a migration-under-load alert (raised, resolved, resolved again with the measured impact) to
 * where admins already look. Delivery is at least once: a receiver tells repeats apart by the event's id.
 */
public interface AlertNotifier extends AutoCloseable {

  /** Starts consuming alert changes on a thread of its own. */
  AlertNotifier start();

  /** Stops, committing what was delivered. */
  @Override
  void close();
}
