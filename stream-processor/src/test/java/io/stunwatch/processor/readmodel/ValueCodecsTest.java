package io.stunwatch.processor.readmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.model.CounterReading;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.model.VgpuProfile;
import io.stunwatch.processor.domain.RdmaRates;
import io.stunwatch.processor.processors.RdmaRecorder;
import io.stunwatch.processor.state.StoreCodec;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UTFDataFormatException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ValueCodecsTest {

  @Test
  void outWritesTheBytesDataOutputStreamWrites() throws Exception {
    // State written by builds that encoded through DataOutputStream must read the same: every kind of write, with
    // the edges of each (signs, NaN, NUL, two- and three-byte characters, a supplementary one as two surrogates).
    var expected = new ByteArrayOutputStream();
    var out = new StoreCodec.Out();
    try (var data = new DataOutputStream(expected)) {
      for (int v : new int[] {0, 1, -1, 0x7f, 0x80, 0xff, 0x1234abcd}) {
        data.writeByte(v);
        out.writeByte(v);
        data.writeInt(v);
        out.writeInt(v);
      }
      for (long v : new long[] {0, -1, Long.MIN_VALUE, Long.MAX_VALUE, 1_700_000_000_123L}) {
        data.writeLong(v);
        out.writeLong(v);
      }
      for (double v : new double[] {0.0, -0.0, 88.5, -1e300, Double.NaN, Double.POSITIVE_INFINITY}) {
        data.writeDouble(v);
        out.writeDouble(v);
      }
      for (boolean v : new boolean[] {true, false}) {
        data.writeBoolean(v);
        out.writeBoolean(v);
      }
      for (String v : new String[] {"", "GPU-a", "nul\u0000here", "é ü", "\u20ac 日本", "\ud83d\ude80 rocket",
          "h".repeat(300)}) {
        data.writeUTF(v);
        out.writeUTF(v);
      }
      byte[] raw = "raw bytes".getBytes(StandardCharsets.UTF_8);
      data.write(raw);
      out.write(raw);
    }
    assertThat(out.toByteArray()).isEqualTo(expected.toByteArray());
  }

  @Test
  void outRefusesAStringTooLongForWriteUtfAsDataOutputStreamDoes() {
    String tooLong = "\u20ac".repeat(0xffff / 3 + 1);
    assertThatThrownBy(() -> new StoreCodec.Out().writeUTF(tooLong)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("too long");
    assertThatThrownBy(() -> new DataOutputStream(new ByteArrayOutputStream()).writeUTF(tooLong))
        .isInstanceOf(UTFDataFormatException.class);
  }

  @Test
  void blockRoundTripKeepsEachSecondAndItsUnknownFiguresUnknown() {
    var known = new VmSamples.Point(1_700_000_000L, 3, 241.5, 3, 15_360L, 16_384L, 812.25, 2, 1.25e9, 0b111);
    var unknown = new VmSamples.Point(1_700_000_009L, 1, 0, 0, null, null, null, null, null, 0);
    var block = new VmSamples.Block(1_700_000_000L, List.of(known, unknown));
    assertThat(ValueCodecs.BLOCK.decode(ValueCodecs.BLOCK.encode(block))).isEqualTo(block);
    var empty = VmSamples.Block.empty(1_700_000_010L);
    assertThat(ValueCodecs.BLOCK.decode(ValueCodecs.BLOCK.encode(empty))).isEqualTo(empty);
  }

  @Test
  void valuesManyTimesTheEncodersFirstBufferRoundTripWhole() {
    Map<String, LoadAggregate.Fb> gpus = new java.util.TreeMap<>();
    for (int i = 0; i < 200; i++) {
      gpus.put(String.format("GPU-4211c0de-0001-aaaa-bbbb-%012d", i), new LoadAggregate.Fb(1_000L * i, 16_384L));
    }
    var wide = new LoadAggregate(4, 180, 3, 75.0, 90, 3, 30_000L, 29_000L, 32_768L, gpus);
    assertThat(ValueCodecs.LOAD_WINDOW.encode(wide).length).isGreaterThan(4 * 1024);
    assertThat(ValueCodecs.LOAD_WINDOW.decode(ValueCodecs.LOAD_WINDOW.encode(wide))).isEqualTo(wide);
    // One write of a few KB at once, past twice the buffer: the buffer must grow to fit it, not merely double.
    String host = "esx-" + "h".repeat(5_000);
    var load = new CurrentLoad("4211c0de-0001-aaaa-bbbb-ccccddddeeee", Map.of(), host, "trainer-01", true);
    assertThat(ValueCodecs.CURRENT_LOAD.decode(ValueCodecs.CURRENT_LOAD.encode(load))).isEqualTo(load);
  }

  @Test
  void eachEncodingHoldsOnlyItsOwnValueAfterALargerOneOrOneThatFailedMidway() {
    // The encoder's buffer is reused by its thread: what an earlier value left in it must never reach a later one.
    var small = new CurrentLoad("4211c0de-0001-aaaa-bbbb-ccccddddeeee", Map.of(), "esx-01", "trainer-01", true);
    byte[] alone = ValueCodecs.CURRENT_LOAD.encode(small);
    var large = new CurrentLoad("4211c0de-0001-aaaa-bbbb-ccccddddeeee", Map.of(), "esx-" + "h".repeat(40_000),
        "trainer-" + "t".repeat(40_000), true); // past the size of buffer a thread keeps
    var kept = new CurrentLoad("4211c0de-0001-aaaa-bbbb-ccccddddeeee", Map.of(), "esx-" + "h".repeat(20_000),
        "trainer-01", false);
    // A map key too long for writeUTF: refused after the fields before it were written (another codec, whose
    // encoder's buffer is the same one).
    var failing = new LoadAggregate(4, 180, 3, 75.0, 90, 3, 30_000L, 29_000L, 32_768L,
        Map.of("\u20ac".repeat(0xffff / 3 + 1), new LoadAggregate.Fb(29_000L, 32_768L)));

    assertThat(ValueCodecs.CURRENT_LOAD.decode(ValueCodecs.CURRENT_LOAD.encode(large))).isEqualTo(large);
    assertThat(ValueCodecs.CURRENT_LOAD.encode(small)).isEqualTo(alone);
    assertThat(ValueCodecs.CURRENT_LOAD.decode(ValueCodecs.CURRENT_LOAD.encode(kept))).isEqualTo(kept);
    assertThat(ValueCodecs.CURRENT_LOAD.encode(small)).isEqualTo(alone);
    assertThatThrownBy(() -> ValueCodecs.LOAD_WINDOW.encode(failing)).isInstanceOf(IllegalStateException.class);
    assertThat(ValueCodecs.CURRENT_LOAD.encode(small)).isEqualTo(alone);
    assertThat(ValueCodecs.CURRENT_LOAD.decode(alone)).isEqualTo(small);
  }

  @Test
  void loadWindowRoundTripKeepsEachGpusFramebuffer() {
    var a = new LoadAggregate(4, 180, 3, 75.0, 90, 3, 30_000L, 29_000L, 32_768L,
        Map.of("GPU-a", new LoadAggregate.Fb(15_000, 16_384), "index:1", new LoadAggregate.Fb(14_000, 16_384)));
    assertThat(ValueCodecs.LOAD_WINDOW.decode(ValueCodecs.LOAD_WINDOW.encode(a))).isEqualTo(a);
    assertThat(ValueCodecs.LOAD_WINDOW.decode(ValueCodecs.LOAD_WINDOW.encode(LoadAggregate.empty())))
        .isEqualTo(LoadAggregate.empty());
  }

  @Test
  void utilizationDayRoundTripKeepsHostsAndLastSamples() {
    var d = new UtilizationDay(Map.of("esx-01", new UtilizationDay.Seconds(3600, 120.5, 3),
        UtilizationDay.UNRESOLVED_HOST, new UtilizationDay.Seconds(0, 0, 60)), Map.of("GPU-a", 1_700_000_000_123L));
    assertThat(ValueCodecs.UTILIZATION_DAY.decode(ValueCodecs.UTILIZATION_DAY.encode(d))).isEqualTo(d);
  }

  @Test
  void currentLoadRoundTripKeepsEachGpusSampleProfileAndUnknowns() {
    Instant at = Instant.parse("2026-11-20T10:00:00.125Z");
    var vgpu = new GpuSample("4211c0de-0001-aaaa-bbbb-ccccddddeeee", "trainer-01", at, 0,
        "GPU-a", "GRID T4-16C", "00000000:02:00.0", 88.0, 41.0, 15_360L, 16_384L, null, null, 1_590L, "P0",
        VgpuProfile.parse("GRID T4-16C").orElseThrow());
    var physical = new GpuSample("4211c0de-0001-aaaa-bbbb-ccccddddeeee", null,
        at.plusMillis(3), 1, null, null, null, null, null, null, null, 251.5, 64.0, null, null, null);
    var both = new CurrentLoad("4211c0de-0001-aaaa-bbbb-ccccddddeeee", Map.of("GPU-a", vgpu, "index:1", physical),
        "esx01", "trainer-01", true);
    var unplaced = new CurrentLoad("4211c0de-0001-aaaa-bbbb-ccccddddeeee", Map.of("GPU-a", vgpu), null, null, false);
    assertThat(ValueCodecs.CURRENT_LOAD.decode(ValueCodecs.CURRENT_LOAD.encode(both))).isEqualTo(both);
    assertThat(ValueCodecs.CURRENT_LOAD.decode(ValueCodecs.CURRENT_LOAD.encode(unplaced))).isEqualTo(unplaced);
  }

  @Test
  void rdmaLastKeepsOnlyTheRateCountersAndRoundTripsTheirStates() {
    Instant at = Instant.parse("2026-11-20T10:00:00.125Z");
    var s = new RdmaCounterSample("4211c0de-0001-aaaa-bbbb-ccccddddeeee", "trainer-01", at,
        "mlx5_0", 1, "Ethernet", Map.of("port_xmit_data", CounterReading.saturated(4294967295L,
            "32-bit counter latched"), "port_rcv_data_64", CounterReading.valid(123_456_789L),
            "port_xmit_data_64", CounterReading.unavailable("no 64-bit counter"),
            "port_rcv_packets", CounterReading.valid(7L)),
        Map.of("out_of_buffer", CounterReading.valid(3L)), null);
    RdmaRates.Last last = new RdmaRates.Last(null).with(s);
    var kept = last.ports().get("mlx5_0/1");
    assertThat(kept.counters()).containsOnlyKeys("port_xmit_data", "port_rcv_data_64", "port_xmit_data_64");
    assertThat(kept.hwCounters()).isEmpty();
    assertThat(RdmaRecorder.RDMA_LAST.decode(RdmaRecorder.RDMA_LAST.encode(last))).isEqualTo(last);
  }

  @Test
  void nullIsATombstoneBothWays() {
    assertThat(ValueCodecs.BLOCK.encode(null)).isNull();
    assertThat(ValueCodecs.BLOCK.decode(null)).isNull();
  }

  @Test
  void aBlockOfTheFormatBeforeTheGpuMaskIsStillRead() {
    // format 1: version, start, one point at offset 3 with 2 samples, 100 % over 2, 8 GiB of 16, no throughput/RDMA
    var bytes = new ByteArrayOutputStream();
    var out = new DataOutputStream(bytes);
    try {
      out.writeByte(1);
      out.writeLong(1_700_000_000L);
      out.writeByte(1);
      out.writeByte(3);
      out.writeInt(2);
      out.writeDouble(100.0);
      out.writeInt(2);
      out.writeByte(1);
      out.writeLong(8192L);
      out.writeByte(1);
      out.writeLong(16_384L);
      out.writeByte(0);
      out.writeByte(0);
      out.writeByte(0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(ValueCodecs.BLOCK.decode(bytes.toByteArray()).points()).containsExactly(
        new VmSamples.Point(1_700_000_003L, 2, 100.0, 2, 8192L, 16_384L, null, null, null, 0));
  }

  /** A busy VM's block: the load moves every second, the framebuffer and the counts stay put. */
  private static VmSamples.Block busyBlock() {
    var b = VmSamples.Block.empty(1_700_000_040L);
    for (int i = 0; i < VmSamples.Block.SECONDS; i++) {
      b = b.with(new VmSamples.Point(1_700_000_040L + i, 1, 80 + i % 17, 1, 15_360L + (i / 20) * 64, 16_384L,
          412.5 + i % 5, 1, 1.25e9 + i * 1_000, 1, 1_200.0 + i, 1));
    }
    return b;
  }

  @Test
  void aClosedBlockOfTheFormerFormatIsStillReadAndTheNewOneIsAFractionOfItsSize() throws IOException {
    VmSamples.Block block = busyBlock();
    byte[] former = formatTwo(block);
    assertThat(ValueCodecs.BLOCK.decode(former)).isEqualTo(block);
    byte[] now = ValueCodecs.BLOCK.encode(block);
    assertThat(now[0]).as("format").isEqualTo((byte) 3);
    assertThat(ValueCodecs.BLOCK.decode(now)).isEqualTo(block);
    assertThat(now.length).as("bytes of a block, against %d in format 2", former.length)
        .isLessThan(former.length / 3);
  }

  /** A block as format 2 wrote it: every figure of every point in full. */
  private static byte[] formatTwo(VmSamples.Block b) throws IOException {
    var bytes = new ByteArrayOutputStream();
    var out = new DataOutputStream(bytes);
    out.writeByte(2);
    out.writeLong(b.startSecond());
    out.writeByte(b.points().size());
    for (VmSamples.Point p : b.points()) {
      out.writeByte((int) (p.epochSecond() - b.startSecond()));
      out.writeInt(p.samples());
      out.writeDouble(p.gpuUtilSum());
      out.writeInt(p.gpuUtilCount());
      writeLong(out, p.fbUsedMiB());
      writeLong(out, p.fbTotalMiB());
      writeDouble(out, p.throughputSum());
      writeInt(out, p.throughputCount());
      writeDouble(out, p.rdmaBytesPerSec());
      out.writeInt(p.gpuMask());
      writeDouble(out, p.totalSum());
      writeInt(out, p.totalCount());
    }
    return bytes.toByteArray();
  }

  private static void writeLong(DataOutputStream out, Long v) throws IOException {
    out.writeByte(v == null ? 0 : 1);
    if (v != null) {
      out.writeLong(v);
    }
  }

  private static void writeDouble(DataOutputStream out, Double v) throws IOException {
    out.writeByte(v == null ? 0 : 1);
    if (v != null) {
      out.writeDouble(v);
    }
  }

  private static void writeInt(DataOutputStream out, Integer v) throws IOException {
    out.writeByte(v == null ? 0 : 1);
    if (v != null) {
      out.writeInt(v);
    }
  }

  @Test
  void stateOfAnotherFormatVersionIsRefusedWithTheValueNamed() {
    byte[] bytes = ValueCodecs.BLOCK.encode(new VmSamples.Block(0, List.of(
        new VmSamples.Point(1, 1, 1, 1, null, null, null, null, null, 1))));
    bytes[0] = 7;
    assertThatThrownBy(() -> ValueCodecs.BLOCK.decode(bytes)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("store.vm-sample-block").hasMessageContaining("format 7");
  }

  @Test
  void aBlockWithASecondOutsideItIsRefusedWithTheValueNamed() {
    byte[] bytes = ValueCodecs.BLOCK.encode(new VmSamples.Block(0, List.of(
        new VmSamples.Point(9, 1, 1, 1, null, null, null, null, null, 1))));
    bytes[1 + 1 + 1] = 10; // after the version, the start (0: one byte) and the count, the point's offset in the block
    assertThatThrownBy(() -> ValueCodecs.BLOCK.decode(bytes)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("store.vm-sample-block").hasMessageContaining("invalid value")
        .hasMessageContaining("second 10");
  }

  @Test
  void truncatedAndOverlongValuesAreRefused() {
    byte[] bytes = ValueCodecs.UTILIZATION_DAY.encode(new UtilizationDay(Map.of("esx-01",
        new UtilizationDay.Seconds(1, 2, 3)), Map.of()));
    assertThatThrownBy(() -> ValueCodecs.UTILIZATION_DAY.decode(Arrays.copyOf(bytes, bytes.length - 3)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("truncated");
    assertThatThrownBy(() -> ValueCodecs.UTILIZATION_DAY.decode(Arrays.copyOf(bytes, bytes.length + 2)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("left over");
  }
}
