package io.stunwatch.collectors.rdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.collectors.worker.WorkerIdentity;
import io.stunwatch.model.CounterReading;
import io.stunwatch.model.CounterState;
import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.testsupport.SharedFixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SysfsRdmaReaderTest {

  static final WorkerIdentity ID = new WorkerIdentity("4c4c4544-0042-3510-8052-b4c04f4e3232", "gpu-vm-01");
  static final Instant T = Instant.parse("2026-11-21T12:00:00Z");

  @TempDir
  Path root;

  private void write(String path, String content) throws IOException {
    Path f = root.resolve(path);
    Files.createDirectories(f.getParent());
    Files.writeString(f, content);
  }

  @Test
  void rawCountersAreReadAndALatchedThirtyTwoBitCounterIsSaturated() throws Exception {
    write("mlx5_0/ports/1/link_layer", "Ethernet\n");
    write("mlx5_0/ports/1/counters/port_xmit_data", "4294967295\n");
    write("mlx5_0/ports/1/counters/port_rcv_data", "123456789\n");
    write("mlx5_0/ports/1/counters/symbol_error", "65535\n");
    write("mlx5_0/ports/1/counters/unicast_xmit_packets", "4294967295\n"); // a 64-bit counter: not saturated
    write("mlx5_0/ports/1/counters_ext/port_xmit_data_64", "98765432109876\n");
    write("mlx5_0/ports/1/hw_counters/rx_write_requests", "42");

    RdmaCounterSample s = new SysfsRdmaReader(root, ID).read(T).samples().get(0);

    assertThat(s.device()).isEqualTo("mlx5_0");
    assertThat(s.port()).isEqualTo(1);
    assertThat(s.linkLayer()).isEqualTo("Ethernet");
    assertThat(s.counters().get("port_xmit_data").state()).isEqualTo(CounterState.SATURATED);
    assertThat(s.counters().get("port_xmit_data").reason()).contains("32-bit");
    assertThat(s.counters().get("port_rcv_data")).isEqualTo(CounterReading.valid(123456789L));
    assertThat(s.counters().get("symbol_error").state()).isEqualTo(CounterState.SATURATED);
    assertThat(s.counters().get("unicast_xmit_packets").state()).isEqualTo(CounterState.VALID);
    assertThat(s.counters().get("port_xmit_data_64")).isEqualTo(CounterReading.valid(98765432109876L));
    assertThat(s.hwCounters().get("rx_write_requests")).isEqualTo(CounterReading.valid(42L));
    assertThat(s.unavailableReason()).isNull();
  }

  @Test
  void anExtendedWidthCounterAbove32BitsIsValidAndStaysSoAtAllOnes() throws Exception {
    // mlx5 (and every device with extended-width PMA) shows 64-bit values in counters/port_*_data
    write("mlx5_0/ports/1/counters/port_xmit_data", "21474836480\n");            // 80 GiB of words: past 2^32
    write("mlx5_0/ports/1/counters/port_rcv_data", "4294967295\n");              // all ones, width not yet known
    SysfsRdmaReader reader = new SysfsRdmaReader(root, ID);
    RdmaCounterSample first = reader.read(T).samples().get(0);
    assertThat(first.counters().get("port_xmit_data")).isEqualTo(CounterReading.valid(21_474_836_480L));
    assertThat(first.counters().get("port_rcv_data").state()).isEqualTo(CounterState.SATURATED);

    write("mlx5_0/ports/1/counters/port_rcv_data", "4294967296\n");              // it was only passing through
    write("mlx5_0/ports/1/counters/port_xmit_data", "4294967295\n");             // a reset brought it down to it
    RdmaCounterSample second = reader.read(T.plusSeconds(1)).samples().get(0);
    assertThat(second.counters().get("port_rcv_data")).isEqualTo(CounterReading.valid(4_294_967_296L));
    assertThat(second.counters().get("port_xmit_data")).as("known to be 64 bits wide: all ones is a value")
        .isEqualTo(CounterReading.valid(4_294_967_295L));
  }

  @Test
  void theMlx5TreesOfTheSharedFixturesReadValid() throws Exception {
    Path procfs = SharedFixtures.dir("rdma/prometheus-procfs/sys/class/infiniband");
    RdmaCounterSample mlx5 = new SysfsRdmaReader(procfs, ID).read(T).samples().stream()
        .filter(s -> s.device().equals("mlx5_0")).findFirst().orElseThrow();
    for (String c : List.of("port_xmit_data", "port_rcv_data", "port_xmit_packets", "port_rcv_packets")) {
      long onDisk = Long.parseLong(Files.readString(procfs.resolve("mlx5_0/ports/1/counters/" + c)).trim());
      assertThat(mlx5.counters().get(c)).as(c).isEqualTo(CounterReading.valid(onDisk));
    }
    assertThat(mlx5.counters().get("port_xmit_data").value()).as("the fixture's value is past 2^32")
        .isGreaterThan(0xFFFF_FFFFL);
  }

  @Test
  void pvrdmaWithoutCountersIsUnavailableNotZero() throws Exception {
    write("vmw_pvrdma0/ports/1/link_layer", "Ethernet\n");
    write("vmw_pvrdma0/ports/1/state", "4: ACTIVE\n");
    RdmaCounterSample s = new SysfsRdmaReader(root, ID).read(T).samples().get(0);
    assertThat(s.counters()).isEmpty();
    assertThat(s.unavailableReason()).contains("no counters/ directory");
  }

  @Test
  void noPmaCountersAreUnavailableWithTheirReasonAndGarbageIsReported() throws Exception {
    write("i40iw0/ports/1/counters/port_xmit_data", "N/A (no PMA)\n");
    write("i40iw0/ports/1/counters/port_rcv_data", "N/A (no PMA)\n");
    write("mlx4_0/ports/1/counters/port_rcv_data", "12x34\n");
    SysfsRdmaReader.Result r = new SysfsRdmaReader(root, ID).read(T);
    RdmaCounterSample i40 = r.samples().get(0);
    assertThat(i40.counters().get("port_xmit_data")).isEqualTo(CounterReading.unavailable("N/A (no PMA)"));
    assertThat(i40.unavailableReason()).isEqualTo("every counter is unavailable: N/A (no PMA)");
    assertThat(r.samples().get(1).counters().get("port_rcv_data").state()).isEqualTo(CounterState.UNAVAILABLE);
    assertThat(r.problems()).singleElement().satisfies(e -> assertThat(e.getMessage())
        .endsWith("mlx4_0/ports/1/counters/port_rcv_data:1: not a counter value: '12x34'"));
  }

  @Test
  void aMissingRootIsAClearError() {
    assertThatThrownBy(() -> new SysfsRdmaReader(root.resolve("nope"), ID).read(T))
        .hasMessageContaining("nope: not a directory");
  }

  @Test
  void sharedFixtureTreesParseWithTheirRealValues() throws Exception {
    Path procfs = SharedFixtures.dir("rdma/prometheus-procfs/sys/class/infiniband");
    List<RdmaCounterSample> samples = new SysfsRdmaReader(procfs, ID).read(T).samples();
    RdmaCounterSample mlx5 = samples.stream().filter(s -> s.device().equals("mlx5_0")).findFirst().orElseThrow();
    long onDisk = Long.parseLong(Files.readString(procfs.resolve("mlx5_0/ports/1/counters/port_xmit_data")).trim());
    assertThat(mlx5.counters().get("port_xmit_data").value()).isEqualTo(onDisk);
    assertThat(mlx5.hwCounters()).containsKey("out_of_buffer");
    assertThat(samples).extracting(RdmaCounterSample::device).contains("hfi1_0", "mlx4_0", "mlx5_0");
    assertThat(samples.stream().filter(s -> s.device().equals("mlx4_0"))).hasSize(2);

    Path exporter = SharedFixtures.dir("rdma/prometheus-node_exporter/sys/class/infiniband");
    List<RdmaCounterSample> ne = new SysfsRdmaReader(exporter, ID).read(T).samples();
    RdmaCounterSample i40 = ne.stream().filter(s -> s.device().equals("i40iw0")).findFirst().orElseThrow();
    assertThat(i40.counters().values()).allSatisfy(c -> assertThat(c.state()).isEqualTo(CounterState.UNAVAILABLE));
    assertThat(i40.unavailableReason()).contains("N/A (no PMA)");
    RdmaCounterSample mlx4 = ne.stream().filter(s -> s.device().equals("mlx4_0")).findFirst().orElseThrow();
    assertThat(mlx4.counters().keySet()).anyMatch(k -> k.endsWith("_64"));
  }
}
