package io.stunwatch.processor.readmodel;

import io.stunwatch.model.CounterReading;
import io.stunwatch.model.CounterState;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.LoadSource;
import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.model.VgpuProfile;
import io.stunwatch.processor.domain.RdmaRates;
import io.stunwatch.processor.state.StoreCodec;
import java.io.DataInputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The codec of {@link VmLive}, the record written for every VM at every commit: a version byte, a byte saying which
 * parts are present, the VM id once, then each part with whole numbers as varints, figures as the fewest bytes that
 * give them back exactly, and UUIDs as their 16 bytes ({@link StoreCodec}'s compact forms). Times are kept to the
 * nanosecond, as the samples carry them.
 */
final class VmLiveCodec extends StoreCodec<VmLive> {

  private static final int CURRENT = 1;
  private static final int TEN_SECONDS = 1 << 1;
  private static final int MINUTE = 1 << 2;
  private static final int HOUR = 1 << 3;
  private static final int DAY = 1 << 4;
  private static final int RDMA = 1 << 5;
  private static final int BLOCK = 1 << 6;

  VmLiveCodec() {
    super("store.vm-live", 1);
  }

  @Override
  protected void write(Out out, VmLive v) {
    int parts = (v.current() != null ? CURRENT : 0) | (v.tenSeconds() != null ? TEN_SECONDS : 0)
        | (v.minute() != null ? MINUTE : 0) | (v.hour() != null ? HOUR : 0) | (v.day() != null ? DAY : 0)
        | (v.rdma() != null ? RDMA : 0) | (v.block() != null ? BLOCK : 0);
    out.writeByte(parts);
    String vmId = v.vmId();
    writeCompact(out, vmId);
    if (v.current() != null) {
      writeCurrent(out, v.current(), vmId);
    }
    for (VmLive.Open<LoadAggregate> w : Arrays.asList(v.tenSeconds(), v.minute(), v.hour())) {
      if (w != null) {
        writeOpen(out, w);
        writeAggregate(out, w.value());
      }
    }
    if (v.day() != null) {
      writeOpen(out, v.day());
      writeDay(out, v.day().value());
    }
    if (v.rdma() != null) {
      writeCompactMap(out, v.rdma().ports(), (o, s) -> writeRdma(o, s, vmId));
    }
    if (v.block() != null) {
      writeBlock(out, v.block());
    }
  }

  @Override
  protected VmLive read(DataInputStream in) throws IOException {
    int parts = in.readUnsignedByte();
    String vmId = readCompactString(in);
    CurrentLoad current = (parts & CURRENT) != 0 ? readCurrent(in, vmId) : null;
    VmLive.Open<LoadAggregate> ten = (parts & TEN_SECONDS) != 0 ? readWindow(in) : null;
    VmLive.Open<LoadAggregate> minute = (parts & MINUTE) != 0 ? readWindow(in) : null;
    VmLive.Open<LoadAggregate> hour = (parts & HOUR) != 0 ? readWindow(in) : null;
    VmLive.Open<UtilizationDay> day = null;
    if ((parts & DAY) != 0) {
      long start = readVarLong(in);
      long timestamp = start + readVarLong(in);
      day = new VmLive.Open<>(start, timestamp, readDay(in));
    }
    RdmaRates.Last rdma = (parts & RDMA) != 0 ? new RdmaRates.Last(readCompactMap(in, i -> readRdma(i, vmId))) : null;
    VmSamples.Block block = (parts & BLOCK) != 0 ? readBlock(in) : null;
    return new VmLive(current, ten, minute, hour, day, rdma, block);
  }

  private static void writeOpen(Out out, VmLive.Open<?> w) {
    writeVarLong(out, w.start());
    writeVarLong(out, w.timestamp() - w.start());
  }

  private static VmLive.Open<LoadAggregate> readWindow(DataInputStream in) throws IOException {
    long start = readVarLong(in);
    long timestamp = start + readVarLong(in);
    return new VmLive.Open<>(start, timestamp, readAggregate(in));
  }

  private static void writeInstant(Out out, Instant t) {
    writeVarLong(out, t.getEpochSecond());
    writeVarLong(out, t.getNano());
  }

  private static Instant readInstant(DataInputStream in) throws IOException {
    return Instant.ofEpochSecond(readVarLong(in), readVarLong(in));
  }

  /** A sample's own VM id: nothing when it is the state's, as it always is (a flag says which). */
  private static void writeVmId(Out out, String own, String vmId) {
    boolean same = own.equals(vmId);
    out.writeBoolean(!same);
    if (!same) {
      writeCompact(out, own);
    }
  }

  private static String readVmId(DataInputStream in, String vmId) throws IOException {
    return in.readBoolean() ? readCompactString(in) : vmId;
  }

  private static void writeCurrent(Out out, CurrentLoad c, String vmId) {
    writeCompact(out, c.host());
    writeCompact(out, c.vmName());
    out.writeBoolean(c.inInventory());
    writeCompactMap(out, c.byGpu(), (o, s) -> {
      writeVmId(o, s.vmId(), vmId);
      writeCompact(o, s.hostname());
      writeInstant(o, s.timestamp());
      writeVarLong(o, s.gpuIndex());
      writeCompact(o, s.gpuUuid());
      writeCompact(o, s.name());
      writeCompact(o, s.pciBusId());
      writeNumber(o, s.utilizationGpuPct());
      writeNumber(o, s.utilizationMemoryPct());
      writeNumber(o, s.memoryUsedMiB());
      writeNumber(o, s.memoryTotalMiB());
      writeNumber(o, s.powerDrawW());
      writeNumber(o, s.temperatureC());
      writeNumber(o, s.smClockMHz());
      writeCompact(o, s.pstate());
      VgpuProfile p = s.vgpuProfile();
      o.writeBoolean(p != null);
      if (p != null) {
        writeCompact(o, p.name());
        writeCompact(o, p.gpuModel());
        writeVarLong(o, p.framebufferMiB());
        writeCompact(o, p.series());
        writeNumber(o, p.migSlices() == null ? null : p.migSlices().longValue());
      }
      writeCompact(o, s.source() == null ? null : s.source().name());
      writeNumber(o, s.migInstanceId() == null ? null : s.migInstanceId().longValue());
    });
  }

  private static CurrentLoad readCurrent(DataInputStream in, String vmId) throws IOException {
    String host = readCompactString(in);
    String vmName = readCompactString(in);
    boolean inInventory = in.readBoolean();
    // Arguments are evaluated left to right, in the order the fields were written.
    Map<String, GpuSample> byGpu = readCompactMap(in, i -> new GpuSample(readVmId(i, vmId), readCompactString(i),
        readInstant(i), (int) readVarLong(i), readCompactString(i), readCompactString(i), readCompactString(i),
        readNumber(i), readNumber(i), readWhole(i), readWhole(i), readNumber(i), readNumber(i), readWhole(i),
        readCompactString(i), i.readBoolean() ? new VgpuProfile(readCompactString(i), readCompactString(i),
            readVarLong(i), readCompactString(i), toInt(readWhole(i))) : null,
        source(readCompactString(i)), toInt(readWhole(i))));
    return new CurrentLoad(vmId, byGpu, host, vmName, inInventory);
  }

  private static LoadSource source(String name) {
    return name == null ? null : LoadSource.valueOf(name);
  }

  private static Integer toInt(Long v) {
    return v == null ? null : Math.toIntExact(v);
  }

  private static void writeAggregate(Out out, LoadAggregate a) {
    writeVarLong(out, a.samples());
    writeNumber(out, a.gpuUtilSum());
    writeVarLong(out, a.gpuUtilCount());
    writeNumber(out, a.gpuUtilMax());
    writeNumber(out, a.memUtilSum());
    writeVarLong(out, a.memUtilCount());
    writeNumber(out, a.fbUsedMaxMiB());
    writeNumber(out, a.fbUsedLastMiB());
    writeNumber(out, a.fbTotalMiB());
    writeCompactMap(out, a.fbByGpu(), (o, fb) -> {
      writeVarLong(o, fb.usedMiB());
      writeVarLong(o, fb.totalMiB());
    });
  }

  private static LoadAggregate readAggregate(DataInputStream in) throws IOException {
    return new LoadAggregate(readVarLong(in), readNumber(in), (int) readVarLong(in), readNumber(in), readNumber(in),
        (int) readVarLong(in), readWhole(in), readWhole(in), readWhole(in),
        readCompactMap(in, i -> new LoadAggregate.Fb(readVarLong(i), readVarLong(i))));
  }

  private static void writeDay(Out out, UtilizationDay d) {
    writeCompactMap(out, d.byHost(), (o, s) -> {
      writeNumber(o, s.busy());
      writeNumber(o, s.idle());
      writeNumber(o, s.unknown());
    });
    writeCompactMap(out, d.lastByGpu(), StoreCodec::writeVarLong);
  }

  private static UtilizationDay readDay(DataInputStream in) throws IOException {
    return new UtilizationDay(readCompactMap(in, i -> new UtilizationDay.Seconds(readNumber(i), readNumber(i),
        readNumber(i))), readCompactMap(in, StoreCodec::readVarLong));
  }

  private static void writeRdma(Out out, RdmaCounterSample s, String vmId) {
    writeVmId(out, s.vmId(), vmId);
    writeCompact(out, s.hostname());
    writeInstant(out, s.timestamp());
    writeCompact(out, s.device());
    writeVarLong(out, s.port());
    writeCompact(out, s.linkLayer());
    writeCompactMap(out, s.counters(), VmLiveCodec::writeCounter);
    writeCompactMap(out, s.hwCounters(), VmLiveCodec::writeCounter);
    writeCompact(out, s.unavailableReason());
  }

  private static RdmaCounterSample readRdma(DataInputStream in, String vmId) throws IOException {
    return new RdmaCounterSample(readVmId(in, vmId), readCompactString(in), readInstant(in), readCompactString(in),
        (int) readVarLong(in), readCompactString(in), readCompactMap(in, VmLiveCodec::readCounter),
        readCompactMap(in, VmLiveCodec::readCounter), readCompactString(in));
  }

  private static void writeCounter(Out out, CounterReading c) {
    writeNumber(out, c.value());
    writeCompact(out, c.state() == null ? null : c.state().name());
    writeCompact(out, c.reason());
  }

  private static CounterReading readCounter(DataInputStream in) throws IOException {
    Long value = readWhole(in);
    String state = readCompactString(in);
    return new CounterReading(value, state == null ? null : CounterState.valueOf(state), readCompactString(in));
  }

  private static void writeBlock(Out out, VmSamples.Block b) {
    writeVarLong(out, b.startSecond());
    out.writeByte(b.points().size());
    for (VmSamples.Point p : b.points()) {
      out.writeByte((int) (p.epochSecond() - b.startSecond()));
      writeVarLong(out, p.samples());
      writeNumber(out, p.gpuUtilSum());
      writeVarLong(out, p.gpuUtilCount());
      writeNumber(out, p.fbUsedMiB());
      writeNumber(out, p.fbTotalMiB());
      writeNumber(out, p.throughputSum());
      writeNumber(out, p.throughputCount() == null ? null : p.throughputCount().longValue());
      writeNumber(out, p.rdmaBytesPerSec());
      writeVarLong(out, p.gpuMask());
      writeNumber(out, p.totalSum());
      writeNumber(out, p.totalCount() == null ? null : p.totalCount().longValue());
    }
  }

  private static VmSamples.Block readBlock(DataInputStream in) throws IOException {
    long start = readVarLong(in);
    int n = in.readUnsignedByte();
    List<VmSamples.Point> points = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      points.add(new VmSamples.Point(start + in.readUnsignedByte(), (int) readVarLong(in), readNumber(in),
          (int) readVarLong(in), readWhole(in), readWhole(in), readNumber(in), toInt(readWhole(in)), readNumber(in),
          (int) readVarLong(in), readNumber(in), toInt(readWhole(in))));
    }
    return new VmSamples.Block(start, points);
  }
}
