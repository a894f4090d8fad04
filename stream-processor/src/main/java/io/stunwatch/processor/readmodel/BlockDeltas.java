package io.stunwatch.processor.readmodel;

import static io.stunwatch.processor.state.CompactForms.readNumber;
import static io.stunwatch.processor.state.CompactForms.readVarLong;
import static io.stunwatch.processor.state.CompactForms.readWhole;
import static io.stunwatch.processor.state.CompactForms.readWholeInt;
import static io.stunwatch.processor.state.CompactForms.writeNumber;
import static io.stunwatch.processor.state.CompactForms.writeVarLong;

import io.stunwatch.processor.state.StoreCodec.Out;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** The open history block of a VM's live state, as {@link VmLiveCodec} writes it. */
final class BlockDeltas {

  private BlockDeltas() {
  }

  /**
   * A block's points, each as its offset in the block, a mask of the figures that differ from the point before it
   * (the first from an empty second's), and those figures: a VM's framebuffer and counts mostly stay put from second
   * to second, and the open block is written whole at every commit.
   */
  static void write(Out out, VmSamples.Block b, long base) {
    writeVarLong(out, b.startSecond() - base);
    out.writeByte(b.points().size());
    VmSamples.Point prev = NO_POINT;
    for (VmSamples.Point p : b.points()) {
      out.writeByte((int) (p.epochSecond() - b.startSecond()));
      int mask = (p.samples() != prev.samples() ? 1 : 0)
          | (Double.doubleToLongBits(p.gpuUtilSum()) != Double.doubleToLongBits(prev.gpuUtilSum()) ? 1 << 1 : 0)
          | (p.gpuUtilCount() != prev.gpuUtilCount() ? 1 << 2 : 0)
          | (!Objects.equals(p.fbUsedMiB(), prev.fbUsedMiB()) ? 1 << 3 : 0)
          | (!Objects.equals(p.fbTotalMiB(), prev.fbTotalMiB()) ? 1 << 4 : 0)
          | (!Objects.equals(p.throughputSum(), prev.throughputSum()) ? 1 << 5 : 0)
          | (!Objects.equals(p.throughputCount(), prev.throughputCount()) ? 1 << 6 : 0)
          | (!Objects.equals(p.rdmaBytesPerSec(), prev.rdmaBytesPerSec()) ? 1 << 7 : 0)
          | (p.gpuMask() != prev.gpuMask() ? 1 << 8 : 0)
          | (!Objects.equals(p.totalSum(), prev.totalSum()) ? 1 << 9 : 0)
          | (!Objects.equals(p.totalCount(), prev.totalCount()) ? 1 << 10 : 0);
      writeVarLong(out, mask);
      if ((mask & 1) != 0) {
        writeVarLong(out, p.samples());
      }
      if ((mask & 1 << 1) != 0) {
        writeNumber(out, p.gpuUtilSum());
      }
      if ((mask & 1 << 2) != 0) {
        writeVarLong(out, p.gpuUtilCount());
      }
      if ((mask & 1 << 3) != 0) {
        writeNumber(out, p.fbUsedMiB());
      }
      if ((mask & 1 << 4) != 0) {
        writeNumber(out, p.fbTotalMiB());
      }
      if ((mask & 1 << 5) != 0) {
        writeNumber(out, p.throughputSum());
      }
      if ((mask & 1 << 6) != 0) {
        writeNumber(out, p.throughputCount());
      }
      if ((mask & 1 << 7) != 0) {
        writeNumber(out, p.rdmaBytesPerSec());
      }
      if ((mask & 1 << 8) != 0) {
        writeVarLong(out, p.gpuMask());
      }
      if ((mask & 1 << 9) != 0) {
        writeNumber(out, p.totalSum());
      }
      if ((mask & 1 << 10) != 0) {
        writeNumber(out, p.totalCount());
      }
      prev = p;
    }
  }

  /** What the first point of a block is written against. */
  private static final VmSamples.Point NO_POINT = new VmSamples.Point(0, 0, 0, 0, null, null, null, null, null, 0,
      null, null);

  static VmSamples.Block read(DataInputStream in, long base) throws IOException {
    long start = base + readVarLong(in);
    int n = in.readUnsignedByte();
    List<VmSamples.Point> points = new ArrayList<>(n);
    VmSamples.Point prev = NO_POINT;
    for (int i = 0; i < n; i++) {
      long second = start + in.readUnsignedByte();
      long mask = readVarLong(in);
      VmSamples.Point p = new VmSamples.Point(second,
          (mask & 1) != 0 ? (int) readVarLong(in) : prev.samples(),
          (mask & 1 << 1) != 0 ? readNumber(in) : prev.gpuUtilSum(),
          (mask & 1 << 2) != 0 ? (int) readVarLong(in) : prev.gpuUtilCount(),
          (mask & 1 << 3) != 0 ? readWhole(in) : prev.fbUsedMiB(),
          (mask & 1 << 4) != 0 ? readWhole(in) : prev.fbTotalMiB(),
          (mask & 1 << 5) != 0 ? readNumber(in) : prev.throughputSum(),
          (mask & 1 << 6) != 0 ? readWholeInt(in) : prev.throughputCount(),
          (mask & 1 << 7) != 0 ? readNumber(in) : prev.rdmaBytesPerSec(),
          (mask & 1 << 8) != 0 ? (int) readVarLong(in) : prev.gpuMask(),
          (mask & 1 << 9) != 0 ? readNumber(in) : prev.totalSum(),
          (mask & 1 << 10) != 0 ? readWholeInt(in) : prev.totalCount());
      points.add(p);
      prev = p;
    }
    return new VmSamples.Block(start, points);
  }
}
