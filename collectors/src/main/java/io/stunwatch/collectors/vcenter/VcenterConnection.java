package io.stunwatch.collectors.vcenter;

import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.VmInventoryEntry;
import java.io.IOException;
import java.time.Instant;
import java.util.List;

/**
 * A logged-in session with one vCenter, independent of the vim25 binding behind it (yavijava today, the official
 * SDK later: {@link YavijavaVcenterConnector}). Every method may throw {@link IOException} when the session or the
 * network is lost; the caller reconnects.
 */
public interface VcenterConnection extends AutoCloseable {

  /** The vCenter's instance UUID ({@code about.instanceUuid}). */
  String instanceUuid();

  /**
   * The events of the migration-relevant types created at or after {@code since}, as VI/JSON trees, in
   * (createdTime, key) order. Filtered on the client too: some servers ignore the type filter.
   */
  List<JsonNode> eventsSince(Instant since) throws IOException;

  /**
   * The current TaskInfo of a task, as a VI/JSON tree; empty when vCenter no longer knows the task.
   *
   * @param taskKey the task key (its moref value), e.g. {@code task-77}
   */
  java.util.Optional<JsonNode> taskInfo(String taskKey) throws IOException;

  /** Every VM, with the properties the processor joins on. */
  List<VmInventoryEntry> vms(Instant observedAt) throws IOException;

  /** Every host. */
  List<HostInventoryEntry> hosts(Instant observedAt) throws IOException;

  /**
   * A file of a datastore, over the datastore HTTP interface ({@code /folder/<path>?dcPath=..&dsName=..}).
   *
   * @throws java.io.FileNotFoundException when it does not exist
   */
  byte[] datastoreFile(String datacenter, String datastore, String path) throws IOException;

  /** Logs out; never throws. */
  @Override
  void close();
}
