package io.stunwatch.processor.readmodel;

import io.stunwatch.model.GpuSample;
import io.stunwatch.model.LoadSource;
import io.stunwatch.model.ThroughputSample;
import io.stunwatch.model.json.Schema;
import java.time.Instant;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * A stretch of a VM's load history, one point per second (samples within a second averaged, several GPUs summed for
 * memory and averaged for utilization), as read from {@link StoreNames#VM_SAMPLES} by {@link io.stunwatch.processor.processors.SampleHistory}.
 *
 * @param points    oldest first
 * @param gpuSource which view the GPU figures of the points came from ({@link LoadKeys}); null when none has any
 */
public record VmSamples(List<Point> points, LoadSource gpuSource) {

  public VmSamples {
    points = List.copyOf(points == null ? List.of() : points);
  }

  /** The guest's own readings. */
  public VmSamples(List<Point> points) {
    this(points, points != null && points.stream().anyMatch(p -> p.samples() > 0) ? LoadSource.GUEST : null);
  }

  /**
   * The guest's points with the GPU figures of the host's view in their place, second by second: what a VM that has
   * no GPU reading of its own (no worker, or a worker without nvidia-smi) shows. Its throughput and RDMA stay the
   * guest's.
   *
   * @param guest the guest's points, none with a GPU reading, oldest first
   * @param host  the host's points, oldest first
   */
  public static VmSamples hostGpu(List<Point> guest, List<Point> host) {
    List<Point> out = new ArrayList<>(guest.size() + host.size());
    int g = 0;
    int h = 0;
    while (g < guest.size() || h < host.size()) {
      Point gp = g < guest.size() ? guest.get(g) : null;
      Point hp = h < host.size() ? host.get(h) : null;
      if (hp == null || gp != null && gp.epochSecond() < hp.epochSecond()) {
        out.add(gp);
        g++;
      } else if (gp == null || hp.epochSecond() < gp.epochSecond()) {
        out.add(hp);
        h++;
      } else {
        out.add(new Point(gp.epochSecond(), hp.samples(), hp.gpuUtilSum(), hp.gpuUtilCount(), hp.fbUsedMiB(),
            hp.fbTotalMiB(), gp.throughputSum(), gp.throughputCount(), gp.rdmaBytesPerSec(), hp.gpuMask(),
            gp.totalSum(), gp.totalCount()));
        g++;
        h++;
      }
    }
    return new VmSamples(out, LoadSource.HOST);
  }

  /**
   * One second of load. Absent figures were unknown in every sample of that second.
   *
   * @param epochSecond    the second
   * @param samples        samples merged into it
   * @param gpuUtilSum     sum of the known GPU utilizations, percent
   * @param gpuUtilCount   how many were known
   * @param fbUsedMiB      framebuffer used, summed over the VM's GPUs (each GPU's first sample of the second), MiB
   * @param fbTotalMiB     framebuffer size, summed over the same GPUs, MiB
   * @param throughputSum   sum of the VM's own training rates (STEP lines) in the second
   * @param throughputCount how many
   * @param gpuMask        the GPU indices (modulo 32) whose framebuffer is in the sums
   * @param totalSum       sum of the whole job's rates (TOTAL lines) in the second: never averaged with STEP rates
   * @param totalCount     how many
   */
  @Schema(name = "store.vm-sample-second")
  public record Point(long epochSecond, int samples, double gpuUtilSum, int gpuUtilCount, Long fbUsedMiB,
      Long fbTotalMiB, Double throughputSum, Integer throughputCount, Double rdmaBytesPerSec, int gpuMask,
      Double totalSum, Integer totalCount) {

    /** A second without job totals. */
    public Point(long epochSecond, int samples, double gpuUtilSum, int gpuUtilCount, Long fbUsedMiB, Long fbTotalMiB,
        Double throughputSum, Integer throughputCount, Double rdmaBytesPerSec, int gpuMask) {
      this(epochSecond, samples, gpuUtilSum, gpuUtilCount, fbUsedMiB, fbTotalMiB, throughputSum, throughputCount,
          rdmaBytesPerSec, gpuMask, null, null);
    }

    public Double gpuUtilizationPct() {
      return gpuUtilCount == 0 ? null : gpuUtilSum / gpuUtilCount;
    }

    /** The VM's own training rate (STEP lines) when it logged one this second, else its job's (TOTAL). */
    public Double throughput() {
      Double step = throughput(false);
      return step != null ? step : throughput(true);
    }

    /** The average of the second's job totals ({@code total}) or of its own rates, never of both. */
    public Double throughput(boolean total) {
      return total ? totalCount == null || totalCount == 0 ? null : totalSum / totalCount
          : throughputCount == null || throughputCount == 0 ? null : throughputSum / throughputCount;
    }
  }

  /**
   * {@link Block#SECONDS} consecutive seconds of a VM's history, the value of {@link StoreNames#VM_SAMPLES}: one
   * store record per block rather than per second, because each record of a window store costs a RocksDB write and a
   * changelog record at the commit, and in a catch-up a commit covers a minute or more of every VM's seconds.
   *
   * @param startSecond the block's first second, a multiple of {@link #SECONDS}
   * @param points      the seconds that have a point, oldest first, each within the block and none twice
   */
  public record Block(long startSecond, List<Point> points) {

    /** Seconds per block: the 10 s load windows' size, so that a live block is rewritten at most ten times. */
    public static final int SECONDS = 10;

    public Block {
      if (Math.floorMod(startSecond, SECONDS) != 0) {
        throw new IllegalArgumentException("a block starts at a multiple of " + SECONDS + " s, not " + startSecond);
      }
      // Points that with() built for this very start were checked as they were placed: not copied or checked again,
      // since a block is rebuilt on every sample of its VM.
      if (!(points instanceof Points built && built.startSecond == startSecond)) {
        Point[] checked = points.toArray(new Point[0]);
        long last = startSecond - 1;
        for (Point p : checked) {
          if (p == null) {
            throw new IllegalArgumentException("a null point in the block of " + startSecond);
          }
          if (p.epochSecond() <= last || p.epochSecond() >= startSecond + SECONDS) {
            throw new IllegalArgumentException("second " + p.epochSecond() + " out of order or outside the block of "
                + startSecond);
          }
          last = p.epochSecond();
        }
        points = new Points(startSecond, checked, checked.length);
      }
    }

    /**
     * The points of one block, in order and within it: an unmodifiable list over an array that nothing writes after
     * it is built.
     */
    private static final class Points extends AbstractList<Point> implements RandomAccess {
      private final long startSecond;
      private final Point[] points;
      private final int size;

      Points(long startSecond, Point[] points, int size) {
        this.startSecond = startSecond;
        this.points = points;
        this.size = size;
      }

      @Override
      public Point get(int index) {
        Objects.checkIndex(index, size);
        return points[index];
      }

      @Override
      public int size() {
        return size;
      }
    }

    /** The first second of the block that holds {@code epochSecond}. */
    public static long startOf(long epochSecond) {
      return epochSecond - Math.floorMod(epochSecond, SECONDS);
    }

    /** An empty block from {@code startSecond}. */
    public static Block empty(long startSecond) {
      return new Block(startSecond, List.of());
    }

    /** The point of {@code epochSecond}, or null when the block has none. */
    public Point point(long epochSecond) {
      Points all = (Points) points;
      for (int i = 0; i < all.size; i++) {
        if (all.points[i].epochSecond() == epochSecond) {
          return all.points[i];
        }
      }
      return null;
    }

    /** This block with {@code p} in place of its second's point, or added in order. */
    public Block with(Point p) {
      if (p.epochSecond() < startSecond || p.epochSecond() >= startSecond + SECONDS) {
        throw new IllegalArgumentException("second " + p.epochSecond() + " outside the block of " + startSecond);
      }
      Points all = (Points) points;
      Point[] next = new Point[all.size + 1];
      int n = 0;
      boolean placed = false;
      for (int i = 0; i < all.size; i++) {
        Point q = all.points[i];
        if (!placed && q.epochSecond() >= p.epochSecond()) {
          next[n++] = p;
          placed = true;
          if (q.epochSecond() == p.epochSecond()) {
            continue;
          }
        }
        next[n++] = q;
      }
      if (!placed) {
        next[n++] = p;
      }
      return new Block(startSecond, new Points(startSecond, next, n));
    }
  }

  /**
   * A second with nothing in it yet. Its {@code samples} is 0: a second with only throughput or RDMA never fills a
   * gap in GPU samples.
   */
  public static Point empty(long epochSecond) {
    return new Point(epochSecond, 0, 0, 0, null, null, null, null, null, 0);
  }

  /** {@code p} with a throughput reading merged in: a job total apart from the VM's own rates. */
  public static Point withThroughput(Point p, ThroughputSample.ThroughputScope scope, double value) {
    if (scope == ThroughputSample.ThroughputScope.TOTAL) {
      return new Point(p.epochSecond(), p.samples(), p.gpuUtilSum(), p.gpuUtilCount(), p.fbUsedMiB(),
          p.fbTotalMiB(), p.throughputSum(), p.throughputCount(), p.rdmaBytesPerSec(), p.gpuMask(),
          (p.totalSum() == null ? 0 : p.totalSum()) + value, (p.totalCount() == null ? 0 : p.totalCount()) + 1);
    }
    return new Point(p.epochSecond(), p.samples(), p.gpuUtilSum(), p.gpuUtilCount(), p.fbUsedMiB(), p.fbTotalMiB(),
        (p.throughputSum() == null ? 0 : p.throughputSum()) + value,
        (p.throughputCount() == null ? 0 : p.throughputCount()) + 1, p.rdmaBytesPerSec(), p.gpuMask(), p.totalSum(),
        p.totalCount());
  }

  /** {@code p} with one port's RDMA rate added: the ports of a VM add up. */
  public static Point withRdma(Point p, double bytesPerSec) {
    return new Point(p.epochSecond(), p.samples(), p.gpuUtilSum(), p.gpuUtilCount(), p.fbUsedMiB(), p.fbTotalMiB(),
        p.throughputSum(), p.throughputCount(), (p.rdmaBytesPerSec() == null ? 0 : p.rdmaBytesPerSec()) + bytesPerSec,
        p.gpuMask(), p.totalSum(), p.totalCount());
  }

  /**
   * {@code p} with a GPU sample merged in. A VM's framebuffer is the sum over its GPUs, as in the load windows,
   * alerts, impacts and forecasts: each GPU's first sample of the second adds its used and total figures (a second
   * sample of the same GPU within the second would count it twice). A GPU whose used figure is unknown adds neither,
   * so that used and total stay comparable.
   */
  public static Point withGpu(Point p, GpuSample s) {
    Double u = s.utilizationGpuPct();
    int bit = s.maskBit();
    boolean adds = (p.gpuMask() & bit) == 0 && s.memoryUsedMiB() != null;
    Long used = adds ? sum(p.fbUsedMiB(), s.memoryUsedMiB()) : p.fbUsedMiB();
    Long total = adds ? sum(p.fbTotalMiB(), s.memoryTotalMiB()) : p.fbTotalMiB();
    return new Point(p.epochSecond(), p.samples() + 1, p.gpuUtilSum() + (u == null ? 0 : u),
        p.gpuUtilCount() + (u == null ? 0 : 1), used, total, p.throughputSum(), p.throughputCount(),
        p.rdmaBytesPerSec(), p.gpuMask() | bit, p.totalSum(), p.totalCount());
  }

  /** The sum of two figures, either of which may be unknown: the known one's instance when the other is. */
  private static Long sum(Long a, Long b) {
    return a == null ? b : b == null ? a : Long.valueOf(a + b);
  }

  /** Load over {@code [from, to]}: average utilization, latest framebuffer; null figures when unknown. */
  public Load load(Instant from, Instant to) {
    double sum = 0;
    int n = 0;
    double rdma = 0;
    int rdmaN = 0;
    Point last = null;
    for (Point p : points) {
      if (p.epochSecond() < from.getEpochSecond() || p.epochSecond() > to.getEpochSecond()) {
        continue;
      }
      Double u = p.gpuUtilizationPct();
      if (u != null) {
        sum += u;
        n++;
      }
      if (p.fbUsedMiB() != null) {
        last = p;
      }
      if (p.rdmaBytesPerSec() != null) {
        rdma += p.rdmaBytesPerSec();
        rdmaN++;
      }
    }
    return new Load(n == 0 ? null : sum / n, n, last == null ? null : last.fbUsedMiB(),
        last == null ? null : last.fbTotalMiB(), rdmaN == 0 ? null : rdma / rdmaN * 8);
  }

  /**
   * Load over a window.
   *
   * @param gpuUtilizationAvgPct average utilization of the seconds with a known value
   * @param seconds              seconds with a known utilization
   * @param fbUsedMiB            the latest framebuffer used
   * @param fbTotalMiB           its total
   * @param rdmaBitsPerSec       average RDMA rate over the seconds that had one, bits per second
   */
  public record Load(Double gpuUtilizationAvgPct, int seconds, Long fbUsedMiB, Long fbTotalMiB,
      Double rdmaBitsPerSec) {

    /** Framebuffer used in percent, when both figures are known. */
    public Double fbUsedPct() {
      return fbUsedMiB == null || fbTotalMiB == null || fbTotalMiB == 0 ? null : 100.0 * fbUsedMiB / fbTotalMiB;
    }
  }
}
