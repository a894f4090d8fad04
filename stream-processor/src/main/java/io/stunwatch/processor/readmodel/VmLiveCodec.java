package io.stunwatch.processor.readmodel;

import static io.stunwatch.processor.state.CompactForms.readCompactString;
import static io.stunwatch.processor.state.CompactForms.readNumber;
import static io.stunwatch.processor.state.CompactForms.readVarLong;
import static io.stunwatch.processor.state.CompactForms.readWhole;
import static io.stunwatch.processor.state.CompactForms.readWholeInt;
import static io.stunwatch.processor.state.CompactForms.writeCompact;
import static io.stunwatch.processor.state.CompactForms.writeNumber;
import static io.stunwatch.processor.state.CompactForms.writeVarLong;

import io.stunwatch.model.CounterReading;
import io.stunwatch.model.CounterState;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.LoadSource;
import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.model.VgpuProfile;
import io.stunwatch.processor.state.StoreCodec;
import java.io.DataInputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The codec of {@link VmLive}, the record written for every VM at every commit. The producer compresses a commit's
 * records together (lz4), which takes out what records share and keeps what each adds; so the format keeps each
 * record's own bytes few and its shared ones in one run:
 * <ol>
 *   <li>a version byte, a byte saying which parts are present;</li>
 *   <li>the record's strings, each once, in the order of their first use (the VM id, GPU and profile names, counter
 *       names: the same run in every VM's record but for a few ids), UUIDs as 16 bytes;</li>
 *   <li>a base second, and every time after it as a difference from it;</li>
 *   <li>the parts, strings by their place in the list, whole numbers as varints, figures as the fewest bytes that give
 *       them back exactly ({@link io.stunwatch.processor.state.CompactForms#writeNumber}).</li>
 * </ol>
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

  /** What one encoding refers to: its strings, by first use, and its base second. */
  private static final class Refs {
    final Map<String, Integer> index = new HashMap<>();
    final List<String> strings = new ArrayList<>();
    long base;

    /** The string's place, 0 for null. */
    int of(String s) {
      if (s == null) {
        return 0;
      }
      Integer i = index.get(s);
      if (i == null) {
        strings.add(s);
        i = strings.size();
        index.put(s, i);
      }
      return i;
    }
  }

  /** What one decoding refers to. */
  private static final class Table {
    final String[] strings;
    final long base;

    Table(String[] strings, long base) {
      this.strings = strings;
      this.base = base;
    }

    String string(DataInputStream in) throws IOException {
      long i = readVarLong(in);
      if (i < 0 || i > strings.length) {
        throw new IllegalStateException("string " + i + " of " + strings.length);
      }
      return i == 0 ? null : strings[(int) i - 1];
    }
  }

  @Override
  protected void write(Out out, VmLive v) {
    Refs refs = new Refs();
    refs.base = base(v);
    Out body = new Out();
    String vmId = v.vmId();
    writeVarLong(body, refs.of(vmId));
    if (v.current() != null) {
      writeCurrent(body, v.current(), vmId, refs);
    }
    for (VmLive.Open<LoadAggregate> w : Arrays.asList(v.tenSeconds(), v.minute(), v.hour())) {
      if (w != null) {
        writeOpen(body, w, refs);
        writeAggregate(body, w.value(), refs);
      }
    }
    if (v.day() != null) {
      writeOpen(body, v.day(), refs);
      writeDay(body, v.day().value(), refs);
    }
    if (v.rdma() != null) {
      writeVarLong(body, v.rdma().size());
      v.rdma().forEach((port, s) -> {
        writeVarLong(body, refs.of(port));
        writeRdma(body, s, vmId, refs);
      });
    }
    if (v.block() != null) {
      BlockDeltas.write(body, v.block(), refs.base);
    }
    out.writeByte((v.current() != null ? CURRENT : 0) | (v.tenSeconds() != null ? TEN_SECONDS : 0)
        | (v.minute() != null ? MINUTE : 0) | (v.hour() != null ? HOUR : 0) | (v.day() != null ? DAY : 0)
        | (v.rdma() != null ? RDMA : 0) | (v.block() != null ? BLOCK : 0));
    writeVarLong(out, refs.strings.size());
    for (String s : refs.strings) {
      writeCompact(out, s);
    }
    writeVarLong(out, refs.base);
    out.write(body.toByteArray());
  }

  /** The second every time of the record is written from: its newest block's, else its newest sample's. */
  private static long base(VmLive v) {
    if (v.block() != null) {
      return v.block().startSecond();
    }
    if (v.current() != null && v.current().latest() != null) {
      return v.current().latest().getEpochSecond();
    }
    if (v.rdma() != null) {
      for (RdmaCounterSample s : v.rdma().values()) {
        return s.timestamp().getEpochSecond();
      }
    }
    return 0;
  }

  @Override
  protected VmLive read(DataInputStream in) throws IOException {
    int parts = in.readUnsignedByte();
    long n = readVarLong(in);
    if (n < 0 || n > in.available()) {
      throw new IllegalStateException(n + " strings in " + in.available() + " bytes");
    }
    String[] strings = new String[(int) n];
    for (int i = 0; i < n; i++) {
      strings[i] = readCompactString(in);
    }
    Table t = new Table(strings, readVarLong(in));
    String vmId = t.string(in);
    CurrentLoad current = (parts & CURRENT) != 0 ? readCurrent(in, vmId, t) : null;
    VmLive.Open<LoadAggregate> ten = (parts & TEN_SECONDS) != 0 ? readWindow(in, t) : null;
    VmLive.Open<LoadAggregate> minute = (parts & MINUTE) != 0 ? readWindow(in, t) : null;
    VmLive.Open<LoadAggregate> hour = (parts & HOUR) != 0 ? readWindow(in, t) : null;
    VmLive.Open<UtilizationDay> day = null;
    if ((parts & DAY) != 0) {
      long start = t.base * 1000 + readVarLong(in);
      long timestamp = start + readVarLong(in);
      day = new VmLive.Open<>(start, timestamp, readDay(in, t));
    }
    Map<String, RdmaCounterSample> rdma = null;
    if ((parts & RDMA) != 0) {
      long ports = readVarLong(in);
      Map<String, RdmaCounterSample> byPort = new HashMap<>();
      for (int i = 0; i < ports; i++) {
        byPort.put(t.string(in), readRdma(in, vmId, t));
      }
      rdma = byPort;
    }
    VmSamples.Block block = (parts & BLOCK) != 0 ? BlockDeltas.read(in, t.base) : null;
    return new VmLive(current, ten, minute, hour, day, rdma, block);
  }

  private static void writeOpen(Out out, VmLive.Open<?> w, Refs refs) {
    writeVarLong(out, w.start() - refs.base * 1000);
    writeVarLong(out, w.timestamp() - w.start());
  }

  private static VmLive.Open<LoadAggregate> readWindow(DataInputStream in, Table t) throws IOException {
    long start = t.base * 1000 + readVarLong(in);
    long timestamp = start + readVarLong(in);
    return new VmLive.Open<>(start, timestamp, readAggregate(in, t));
  }

  private static void writeInstant(Out out, Instant at, Refs refs) {
    writeVarLong(out, at.getEpochSecond() - refs.base);
    writeVarLong(out, at.getNano());
  }

  private static Instant readInstant(DataInputStream in, Table t) throws IOException {
    return Instant.ofEpochSecond(t.base + readVarLong(in), readVarLong(in));
  }

  /** A sample's own VM id: nothing when it is the state's, as it always is (a flag says which). */
  private static void writeVmId(Out out, String own, String vmId, Refs refs) {
    writeVarLong(out, own.equals(vmId) ? 0 : refs.of(own));
  }

  private static String readVmId(DataInputStream in, String vmId, Table t) throws IOException {
    String own = t.string(in);
    return own == null ? vmId : own;
  }

  private static void writeCurrent(Out out, CurrentLoad c, String vmId, Refs refs) {
    writeVarLong(out, refs.of(c.host()));
    writeVarLong(out, refs.of(c.vmName()));
    out.writeBoolean(c.inInventory());
    writeVarLong(out, c.byGpu().size());
    c.byGpu().forEach((gpu, s) -> {
      writeVarLong(out, refs.of(gpu));
      writeVmId(out, s.vmId(), vmId, refs);
      writeVarLong(out, refs.of(s.hostname()));
      writeInstant(out, s.timestamp(), refs);
      writeVarLong(out, s.gpuIndex());
      writeVarLong(out, refs.of(s.gpuUuid()));
      writeVarLong(out, refs.of(s.name()));
      writeVarLong(out, refs.of(s.pciBusId()));
      writeNumber(out, s.utilizationGpuPct());
      writeNumber(out, s.utilizationMemoryPct());
      writeNumber(out, s.memoryUsedMiB());
      writeNumber(out, s.memoryTotalMiB());
      writeNumber(out, s.powerDrawW());
      writeNumber(out, s.temperatureC());
      writeNumber(out, s.smClockMHz());
      writeVarLong(out, refs.of(s.pstate()));
      VgpuProfile p = s.vgpuProfile();
      out.writeBoolean(p != null);
      if (p != null) {
        writeVarLong(out, refs.of(p.name()));
        writeVarLong(out, refs.of(p.gpuModel()));
        writeVarLong(out, p.framebufferMiB());
        writeVarLong(out, refs.of(p.series()));
        writeNumber(out, p.migSlices());
      }
      writeVarLong(out, refs.of(s.source() == null ? null : s.source().name()));
      writeNumber(out, s.migInstanceId());
    });
  }

  private static CurrentLoad readCurrent(DataInputStream in, String vmId, Table t) throws IOException {
    String host = t.string(in);
    String vmName = t.string(in);
    boolean inInventory = in.readBoolean();
    long n = readVarLong(in);
    Map<String, GpuSample> byGpu = new HashMap<>();
    for (int i = 0; i < n; i++) {
      String gpu = t.string(in);
      // Arguments are evaluated left to right, in the order the fields were written.
      byGpu.put(gpu, new GpuSample(readVmId(in, vmId, t), t.string(in), readInstant(in, t), (int) readVarLong(in),
          t.string(in), t.string(in), t.string(in), readNumber(in), readNumber(in), readWhole(in), readWhole(in),
          readNumber(in), readNumber(in), readWhole(in), t.string(in), in.readBoolean()
              ? new VgpuProfile(t.string(in), t.string(in), readVarLong(in), t.string(in), readWholeInt(in))
              : null,
          source(t.string(in)), readWholeInt(in)));
    }
    return new CurrentLoad(vmId, byGpu, host, vmName, inInventory);
  }

  private static LoadSource source(String name) {
    return name == null ? null : LoadSource.valueOf(name);
  }


  private static void writeAggregate(Out out, LoadAggregate a, Refs refs) {
    writeVarLong(out, a.samples());
    writeNumber(out, a.gpuUtilSum());
    writeVarLong(out, a.gpuUtilCount());
    writeNumber(out, a.gpuUtilMax());
    writeNumber(out, a.memUtilSum());
    writeVarLong(out, a.memUtilCount());
    writeNumber(out, a.fbUsedMaxMiB());
    writeNumber(out, a.fbUsedLastMiB());
    writeNumber(out, a.fbTotalMiB());
    writeVarLong(out, a.fbByGpu().size());
    a.fbByGpu().forEach((gpu, fb) -> {
      writeVarLong(out, refs.of(gpu));
      writeVarLong(out, fb.usedMiB());
      writeVarLong(out, fb.totalMiB());
    });
  }

  private static LoadAggregate readAggregate(DataInputStream in, Table t) throws IOException {
    long samples = readVarLong(in);
    double utilSum = readNumber(in);
    int utilCount = (int) readVarLong(in);
    Double utilMax = readNumber(in);
    double memSum = readNumber(in);
    int memCount = (int) readVarLong(in);
    Long fbMax = readWhole(in);
    Long fbLast = readWhole(in);
    Long fbTotal = readWhole(in);
    long n = readVarLong(in);
    Map<String, LoadAggregate.Fb> byGpu = new HashMap<>();
    for (int i = 0; i < n; i++) {
      byGpu.put(t.string(in), new LoadAggregate.Fb(readVarLong(in), readVarLong(in)));
    }
    return new LoadAggregate(samples, utilSum, utilCount, utilMax, memSum, memCount, fbMax, fbLast, fbTotal, byGpu);
  }

  private static void writeDay(Out out, UtilizationDay d, Refs refs) {
    writeVarLong(out, d.byHost().size());
    d.byHost().forEach((host, s) -> {
      writeVarLong(out, refs.of(host));
      writeNumber(out, s.busy());
      writeNumber(out, s.idle());
      writeNumber(out, s.unknown());
    });
    writeVarLong(out, d.lastByGpu().size());
    d.lastByGpu().forEach((gpu, last) -> {
      writeVarLong(out, refs.of(gpu));
      writeVarLong(out, last - refs.base * 1000);
    });
  }

  private static UtilizationDay readDay(DataInputStream in, Table t) throws IOException {
    long hosts = readVarLong(in);
    Map<String, UtilizationDay.Seconds> byHost = new HashMap<>();
    for (int i = 0; i < hosts; i++) {
      byHost.put(t.string(in), new UtilizationDay.Seconds(readNumber(in), readNumber(in), readNumber(in)));
    }
    long gpus = readVarLong(in);
    Map<String, Long> lastByGpu = new HashMap<>();
    for (int i = 0; i < gpus; i++) {
      lastByGpu.put(t.string(in), t.base * 1000 + readVarLong(in));
    }
    return new UtilizationDay(byHost, lastByGpu);
  }

  private static void writeRdma(Out out, RdmaCounterSample s, String vmId, Refs refs) {
    writeVmId(out, s.vmId(), vmId, refs);
    writeVarLong(out, refs.of(s.hostname()));
    writeInstant(out, s.timestamp(), refs);
    writeVarLong(out, refs.of(s.device()));
    writeVarLong(out, s.port());
    writeVarLong(out, refs.of(s.linkLayer()));
    writeCounters(out, s.counters(), refs);
    writeCounters(out, s.hwCounters(), refs);
    writeVarLong(out, refs.of(s.unavailableReason()));
  }

  private static RdmaCounterSample readRdma(DataInputStream in, String vmId, Table t) throws IOException {
    return new RdmaCounterSample(readVmId(in, vmId, t), t.string(in), readInstant(in, t), t.string(in),
        (int) readVarLong(in), t.string(in), readCounters(in, t), readCounters(in, t), t.string(in));
  }

  private static void writeCounters(Out out, Map<String, CounterReading> counters, Refs refs) {
    writeVarLong(out, counters.size());
    counters.forEach((name, c) -> {
      writeVarLong(out, refs.of(name));
      writeNumber(out, c.value());
      writeVarLong(out, refs.of(c.state() == null ? null : c.state().name()));
      writeVarLong(out, refs.of(c.reason()));
    });
  }

  private static Map<String, CounterReading> readCounters(DataInputStream in, Table t) throws IOException {
    long n = readVarLong(in);
    Map<String, CounterReading> out = new HashMap<>();
    for (int i = 0; i < n; i++) {
      String name = t.string(in);
      Long value = readWhole(in);
      String state = t.string(in);
      out.put(name, new CounterReading(value, state == null ? null : CounterState.valueOf(state), t.string(in)));
    }
    return out;
  }
}
