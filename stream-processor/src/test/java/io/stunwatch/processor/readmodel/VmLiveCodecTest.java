package io.stunwatch.processor.readmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.model.CounterReading;
import io.stunwatch.model.CounterState;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.LoadSource;
import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.model.VgpuProfile;
import io.stunwatch.processor.domain.RdmaRates;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link VmLive}'s codec gives back every part exactly (unknown figures unknown, fractions to the last bit, times to
 * the nanosecond), and its record is a fraction of the seven it replaced; {@link LoadKeySerde} packs a VM id.
 */
class VmLiveCodecTest {

  static final String VM = "4205d7b3-8c1e-4b57-9a2e-0c6f1e2d3a4b";
  static final Instant T = Instant.parse("2026-11-21T10:00:07.123456789Z");

  static VmLive full() {
    GpuSample s = new GpuSample(VM, "esx01", T, 0, "GPU-5a1c0c6e-2f4b-4a8e-9d3c-7b6a5f4e3d2c", "GRID T4-16C",
        "00000000:3B:00.0", 87.0, 43.5, 15_360L, 16_384L, 68.25, 61.0, 1_590L, "P0",
        VgpuProfile.parse("GRID T4-16C").orElseThrow(), LoadSource.HOST, null);
    GpuSample unknown = new GpuSample(VM, "guest", T, 1, null, "Tesla T4", null, null, null, null, null, null, null,
        null, null, null);
    CurrentLoad current = new CurrentLoad(VM, Map.of(s.gpuKey(), s, unknown.gpuKey(), unknown), "esx01", "train-1",
        true);
    LoadAggregate a = LoadAggregate.empty().with(s).with(unknown).with(s);
    long start = Instant.parse("2026-11-21T10:00:00Z").toEpochMilli();
    UtilizationDay day = UtilizationDay.empty().with(s, "esx01", 5, 60)
        .with(new GpuSample(VM, "esx01", T.plusMillis(1_333), 0, s.gpuUuid(), s.name(), s.pciBusId(), 3.0, null,
            15_360L, 16_384L, null, null, null, null, null, LoadSource.HOST, null), "esx01", 5, 60);
    RdmaCounterSample r = new RdmaCounterSample(VM, "guest", T, "mlx5_0", 1, "Ethernet",
        Map.of("port_rcv_data", new CounterReading(123_456_789_012L, CounterState.VALID, null),
            "port_xmit_data", new CounterReading(null, CounterState.UNAVAILABLE, "not readable")), Map.of(), null);
    VmSamples.Block block = VmSamples.Block.empty(1_763_719_200L)
        .with(new VmSamples.Point(1_763_719_201L, 3, 241.5, 3, 15_360L, 16_384L, 812.123456789, 2, 1.2345e9 / 7, 0b1))
        .with(new VmSamples.Point(1_763_719_205L, 1, 0, 0, null, null, null, null, null, 0, 9.75, 1));
    return new VmLive(current, new VmLive.Open<>(start, start + 7_123, a), new VmLive.Open<>(start, start + 7_123, a),
        null, new VmLive.Open<>(Instant.parse("2026-11-21T00:00:00Z").toEpochMilli(), T.toEpochMilli(), day),
        new RdmaRates.Last(null).with(r).ports(), block);
  }

  @Test
  void everyPartComesBackExactly() {
    VmLive v = full();
    assertThat(ValueCodecs.VM_LIVE.decode(ValueCodecs.VM_LIVE.encode(v))).isEqualTo(v);
    assertThat(ValueCodecs.VM_LIVE.decode(ValueCodecs.VM_LIVE.encode(VmLive.EMPTY))).isEqualTo(VmLive.EMPTY);
    VmLive rdmaOnly = VmLive.EMPTY.withRdma(v.rdma());
    assertThat(ValueCodecs.VM_LIVE.decode(ValueCodecs.VM_LIVE.encode(rdmaOnly))).isEqualTo(rdmaOnly);
  }

  @Test
  void itsRecordIsSmallerThanTheFormerStoresValuesTogether() {
    VmLive v = full();
    int former = ValueCodecs.CURRENT_LOAD.encode(v.current()).length
        + 2 * ValueCodecs.LOAD_WINDOW.encode(v.tenSeconds().value()).length
        + ValueCodecs.UTILIZATION_DAY.encode(v.day().value()).length
        + ValueCodecs.BLOCK.encode(v.block()).length
        + io.stunwatch.processor.processors.RdmaRecorder.RDMA_LAST.encode(new RdmaRates.Last(v.rdma())).length;
    int now = ValueCodecs.VM_LIVE.encode(v).length;
    // The strings that remain (GPU and profile names, counter names) are the same in every VM's record, which the
    // producer's lz4 takes out of a batch; ids and figures are what each record adds.
    assertThat(now).as("one record against %d bytes in six", former).isLessThan(former * 6 / 10);
  }

  @Test
  void aVmIdKeyIsSeventeenBytesAndEveryOtherKeyItsText() {
    assertThat(LoadKeySerde.encode(VM)).hasSize(17);
    assertThat(LoadKeySerde.decode(LoadKeySerde.encode(VM))).isEqualTo(VM);
    String host = LoadKeys.of(VM, LoadSource.HOST);
    assertThat(LoadKeySerde.decode(LoadKeySerde.encode(host))).isEqualTo(host);
    assertThat(java.util.Arrays.compare(LoadKeySerde.encode(VM), LoadKeySerde.encode(host)))
        .as("the guest's view sorts right before the host's, as the text keys do").isNegative();
    for (String other : new String[] {"vm-1", VM.toUpperCase(), "vm-1|host", ""}) {
      assertThat(LoadKeySerde.decode(LoadKeySerde.encode(other))).isEqualTo(other);
    }
    assertThatThrownBy(() -> LoadKeySerde.encode("0123456789abcdef\u0001"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aValueOfAnotherFormatIsRefusedByName() {
    byte[] b = ValueCodecs.VM_LIVE.encode(full());
    b[0] = 9;
    assertThatThrownBy(() -> ValueCodecs.VM_LIVE.decode(b)).hasMessageContaining("store.vm-live");
  }
}
