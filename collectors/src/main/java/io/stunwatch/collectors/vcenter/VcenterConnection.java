package io.stunwatch.collectors.vcenter;

import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.VmInventoryEntry;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A logged-in session with one vCenter, independent of the vim25 binding behind it (yavijava today, the official
 * SDK later: {@link YavijavaVcenterConnector}). Every method may throw {@link IOException} when the session or the
 * network is lost; the caller reconnects.
 */
public interface VcenterConnection extends DrsOverrideControl, AutoCloseable {

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
  Optional<JsonNode> taskInfo(String taskKey) throws IOException;

  /** Every VM, with the properties the processor joins on. */
  List<VmInventoryEntry> vms(Instant observedAt) throws IOException;

  /** Every host. */
  List<HostInventoryEntry> hosts(Instant observedAt) throws IOException;

  /**
   * The end of a datastore file, over the datastore HTTP interface ({@code /folder/<path>?dcPath=..&dsName=..}),
   * with an HTTP Range request: at most {@code maxBytes}, the last ones. A redirect is never followed: it would carry
   * the session cookie to another host.
   *
   * @param datacenter the datacenter's name as the inventory gives it; the connection sends its full inventory path
   * @throws java.io.FileNotFoundException when it does not exist
   */
  Tail datastoreTail(String datacenter, String datastore, String path, long maxBytes) throws IOException;

  /**
   * The names of the files in a datastore directory (from its HTML listing), e.g. {@code vmware-3.log}.
   *
   * @param dir the directory, e.g. {@code gpu-vm-01/}
   * @throws java.io.FileNotFoundException when it does not exist
   */
  List<String> datastoreDirectory(String datacenter, String datastore, String dir) throws IOException;

  /**
   * The end of a file.
   *
   * @param content the bytes read
   * @param offset  where they start in the file: 0 when they are the whole file
   */
  record Tail(byte[] content, long offset) {
  }

  /** Logs out; never throws. */
  @Override
  void close();
}
