package io.stunwatch.api;

import io.stunwatch.model.LoadSource;
import io.stunwatch.processor.readmodel.CurrentLoad;
import io.stunwatch.processor.readmodel.LoadKeys;
import io.vertx.core.Future;
import java.util.Optional;

/**
 * A VM's current load in both views the processor keeps apart ({@link LoadKeys}): its guest's readings and its ESXi
 * host's. The figures an answer gives are the guest's when it has any, else the host's, as the processor's alerts and
 * impacts choose.
 *
 * @param guest the guest's view, or empty
 * @param host  the ESXi host's view, or empty
 */
record LoadViews(Optional<CurrentLoad> guest, Optional<CurrentLoad> host) {

  /** Both views of {@code vmId}, read together. */
  static Future<LoadViews> of(StoreReader stores, String vmId) {
    Future<Optional<CurrentLoad>> guest = stores.currentLoad(vmId);
    Future<Optional<CurrentLoad>> host = stores.currentLoad(LoadKeys.of(vmId, LoadSource.HOST));
    return Future.all(guest, host).map(x -> new LoadViews(guest.result(), host.result()));
  }

  /** The view the figures come from, or empty when the VM has neither. */
  Optional<LoadSource> chosen() {
    return guest.isPresent() ? Optional.of(LoadSource.GUEST)
        : host.isPresent() ? Optional.of(LoadSource.HOST) : Optional.empty();
  }

  /** The load of the chosen view. */
  Optional<CurrentLoad> load() {
    return guest.isPresent() ? guest : host;
  }
}
