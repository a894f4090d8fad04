package io.stunwatch.collectors.vcenter;

import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.model.DrsOverride;
import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.VmInventoryEntry;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A vCenter for a unit test: no events, tasks or inventory; each test overrides the part it plays (a datastore, a
 * cluster's DRS overrides), and the rest refuses.
 */
abstract class FakeVcenter implements VcenterConnection {

  @Override
  public String instanceUuid() {
    return "vc";
  }

  @Override
  public List<JsonNode> eventsSince(Instant since) {
    return List.of();
  }

  @Override
  public Optional<JsonNode> taskInfo(String taskKey) {
    return Optional.empty();
  }

  @Override
  public List<VmInventoryEntry> vms(Instant observedAt) {
    return List.of();
  }

  @Override
  public List<HostInventoryEntry> hosts(Instant observedAt) {
    return List.of();
  }

  @Override
  public Tail datastoreTail(String datacenter, String datastore, String path, long maxBytes) throws IOException {
    throw new UnsupportedOperationException("not a datastore");
  }

  @Override
  public List<String> datastoreDirectory(String datacenter, String datastore, String dir) throws IOException {
    throw new UnsupportedOperationException("not a datastore");
  }

  @Override
  public Map<String, DrsOverride> drsOverrides(String clusterMoref) throws IOException {
    throw new UnsupportedOperationException("not a cluster");
  }

  @Override
  public void setDrsOverride(String clusterMoref, String vmMoref, DrsOverride from, DrsOverride to)
      throws IOException {
    throw new UnsupportedOperationException("not a cluster");
  }

  @Override
  public void close() {
  }
}
