package io.stunwatch.processor.readmodel;

import io.stunwatch.model.GpuSample;
import io.stunwatch.model.LoadSource;
import io.stunwatch.model.VgpuProfile;
import io.stunwatch.processor.state.StoreCodec;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.Map;

/**
 * The binary codecs of the view's store values ({@link StoreCodec}): what the processor writes and the API reads.
 */
public final class ValueCodecs {

  private ValueCodecs() {
  }

  /**
   * {@link VmSamples.Block}, the value of {@link StoreNames#VM_SAMPLES}: written once, when the block closes, as the
   * open block is in {@link StoreNames#VM_LIVE} ({@link BlockDeltas}): each point as the figures that differ from the
   * point before it, in the fewest bytes that give them back exactly. Format 2 wrote every figure of every point in
   * full, 19 B a point after the changelog's compression.
   */
  public static final StoreCodec<VmSamples.Block> BLOCK = new StoreCodec<>("store.vm-sample-block", 3, 1) {
    @Override
    protected void write(Out out, VmSamples.Block b) {
      BlockDeltas.write(out, b, 0);
    }

    @Override
    protected VmSamples.Block read(DataInputStream in) throws IOException {
      return BlockDeltas.read(in, 0);
    }

    /**
     * Format 1 had no GPU mask and no job totals: its framebuffer figure was the largest GPU's, and its throughput
     * the average of every line of the second, read as they are. Format 2 had every figure in full.
     */
    @Override
    protected VmSamples.Block read(DataInputStream in, int version) throws IOException {
      if (version >= 3) {
        return read(in);
      }
      long start = in.readLong();
      int n = in.readUnsignedByte();
      VmSamples.Point[] points = new VmSamples.Point[n];
      for (int i = 0; i < n; i++) {
        points[i] = new VmSamples.Point(start + in.readUnsignedByte(), in.readInt(), in.readDouble(), in.readInt(),
            readNullableLong(in), readNullableLong(in), readNullableDouble(in), readNullableInt(in),
            readNullableDouble(in), version >= 2 ? in.readInt() : 0, version >= 2 ? readNullableDouble(in) : null,
            version >= 2 ? readNullableInt(in) : null);
      }
      return new VmSamples.Block(start, Arrays.asList(points));
    }
  };

  /** {@link VmLive}, the value of {@link StoreNames#VM_LIVE}. */
  public static final StoreCodec<VmLive> VM_LIVE = new VmLiveCodec();

  /** {@link LoadAggregate}, the value of {@link StoreNames#VM_LOAD_10S} and {@link StoreNames#VM_LOAD_1M}. */
  public static final StoreCodec<LoadAggregate> LOAD_WINDOW = new StoreCodec<>("store.vm-load-window", 1) {
    @Override
    protected void write(Out out, LoadAggregate a) {
      out.writeLong(a.samples());
      out.writeDouble(a.gpuUtilSum());
      out.writeInt(a.gpuUtilCount());
      writeNullable(out, a.gpuUtilMax());
      out.writeDouble(a.memUtilSum());
      out.writeInt(a.memUtilCount());
      writeNullable(out, a.fbUsedMaxMiB());
      writeNullable(out, a.fbUsedLastMiB());
      writeNullable(out, a.fbTotalMiB());
      writeMap(out, a.fbByGpu(), (o, fb) -> {
        o.writeLong(fb.usedMiB());
        o.writeLong(fb.totalMiB());
      });
    }

    @Override
    protected LoadAggregate read(DataInputStream in) throws IOException {
      return new LoadAggregate(in.readLong(), in.readDouble(), in.readInt(), readNullableDouble(in), in.readDouble(),
          in.readInt(), readNullableLong(in), readNullableLong(in), readNullableLong(in),
          readMap(in, i -> new LoadAggregate.Fb(i.readLong(), i.readLong())));
    }
  };

  /**
   * {@link CurrentLoad}, the value of {@link StoreNames#VM_LOAD_CURRENT}: written on every GPU sample, where its JSON
   * (a whole sample per GPU) was a tenth of the stream thread's time.
   */
  public static final StoreCodec<CurrentLoad> CURRENT_LOAD = new StoreCodec<>("store.vm-load-current", 2, 1) {
    @Override
    protected void write(Out out, CurrentLoad c) {
      writeNullable(out, c.vmId());
      writeNullable(out, c.host());
      writeNullable(out, c.vmName());
      out.writeBoolean(c.inInventory());
      writeMap(out, c.byGpu(), (o, s) -> {
        writeNullable(o, s.vmId());
        writeNullable(o, s.hostname());
        writeNullable(o, s.timestamp());
        o.writeInt(s.gpuIndex());
        writeNullable(o, s.gpuUuid());
        writeNullable(o, s.name());
        writeNullable(o, s.pciBusId());
        writeNullable(o, s.utilizationGpuPct());
        writeNullable(o, s.utilizationMemoryPct());
        writeNullable(o, s.memoryUsedMiB());
        writeNullable(o, s.memoryTotalMiB());
        writeNullable(o, s.powerDrawW());
        writeNullable(o, s.temperatureC());
        writeNullable(o, s.smClockMHz());
        writeNullable(o, s.pstate());
        VgpuProfile p = s.vgpuProfile();
        o.writeBoolean(p != null);
        if (p != null) {
          writeNullable(o, p.name());
          writeNullable(o, p.gpuModel());
          o.writeLong(p.framebufferMiB());
          writeNullable(o, p.series());
          writeNullable(o, p.migSlices());
        }
        // format 2: the view that read it and the MIG instance
        o.writeByte(s.source() == null ? -1 : s.source().ordinal());
        writeNullable(o, s.migInstanceId());
      });
    }

    @Override
    protected CurrentLoad read(DataInputStream in) throws IOException {
      return read(in, 2);
    }

    @Override
    protected CurrentLoad read(DataInputStream in, int version) throws IOException {
      String vmId = readNullableString(in);
      String host = readNullableString(in);
      String vmName = readNullableString(in);
      boolean inInventory = in.readBoolean();
      // Arguments are evaluated left to right, in the order write() wrote the fields.
      Map<String, GpuSample> byGpu = readMap(in, i -> new GpuSample(readNullableString(i), readNullableString(i),
          readNullableInstant(i), i.readInt(), readNullableString(i), readNullableString(i), readNullableString(i),
          readNullableDouble(i), readNullableDouble(i), readNullableLong(i), readNullableLong(i),
          readNullableDouble(i), readNullableDouble(i), readNullableLong(i), readNullableString(i),
          i.readBoolean() ? new VgpuProfile(readNullableString(i), readNullableString(i), i.readLong(),
              readNullableString(i), readNullableInt(i)) : null,
          version < 2 ? null : source(i.readByte()), version < 2 ? null : readNullableInt(i)));
      return new CurrentLoad(vmId, byGpu, host, vmName, inInventory);
    }
  };

  private static LoadSource source(byte ordinal) {
    return ordinal < 0 ? null : LoadSource.values()[ordinal];
  }

  /** {@link UtilizationDay}, the value of {@link StoreNames#UTILIZATION_DAILY}. */
  public static final StoreCodec<UtilizationDay> UTILIZATION_DAY = new StoreCodec<>("store.utilization-day", 1) {
    @Override
    protected void write(Out out, UtilizationDay d) {
      writeMap(out, d.byHost(), (o, s) -> {
        o.writeDouble(s.busy());
        o.writeDouble(s.idle());
        o.writeDouble(s.unknown());
      });
      writeMap(out, d.lastByGpu(), Out::writeLong);
    }

    @Override
    protected UtilizationDay read(DataInputStream in) throws IOException {
      return new UtilizationDay(readMap(in, i -> new UtilizationDay.Seconds(i.readDouble(), i.readDouble(),
          i.readDouble())), readMap(in, DataInputStream::readLong));
    }
  };
}
