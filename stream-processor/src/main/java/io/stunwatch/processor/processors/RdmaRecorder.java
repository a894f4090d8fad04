package io.stunwatch.processor.processors;

import io.stunwatch.model.CounterReading;
import io.stunwatch.model.CounterState;
import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.processor.domain.RdmaRates;
import io.stunwatch.processor.state.StoreCodec;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.processor.readmodel.VmLive;
import io.stunwatch.processor.readmodel.VmSamples;
import java.io.DataInputStream;
import java.io.IOException;

/**
 * Turns each VM's raw RDMA counters into rates in its per-second history: a part of {@link VmReadingsProcessor}. The
 * counters each rate is taken from are the VM's live state's ({@link VmLive#rdma}).
 */
public final class RdmaRecorder {
  private LiveStates lives;
  private SampleHistory samples;

  /** Called from the processor's {@code init}, with the history and the live states it writes through. */
  void init(SampleHistory history, LiveStates lives) {
    this.lives = lives;
    this.samples = history;
  }

  /** Records an RDMA counter sample of the VM keyed {@code key}. */
  public void record(String key, RdmaCounterSample s) {
    VmLive live = lives.get(key);
    RdmaRates.Last before = live.rdma() == null ? null : new RdmaRates.Last(live.rdma());
    RdmaCounterSample prev = before == null ? null : before.ports().get(RdmaRates.portKey(s));
    if (prev != null && !s.timestamp().isAfter(prev.timestamp())) {
      return; // late or repeated: the newer reading stays the reference
    }
    Double rate = RdmaRates.bytesPerSecond(prev, s);
    lives.put(key, live.withRdma((before == null ? new RdmaRates.Last(null) : before).with(s).ports()));
    if (rate != null) {
      samples.update(key, s.timestamp(), p -> VmSamples.withRdma(p, rate));
    }
  }

  /**
   * {@link RdmaRates.Last}, the value of {@link StoreNames#RDMA_LAST}, which {@link StoreNames#VM_LIVE} replaced: read
   * to convert a site's state.
   */
  public static final StoreCodec<RdmaRates.Last> RDMA_LAST = new LastCodec();

  private static final class LastCodec extends StoreCodec<RdmaRates.Last> {

    LastCodec() {
      super("store.rdma-last", 1);
    }

    @Override
    protected void write(Out out, RdmaRates.Last last) {
      writeMap(out, last.ports(), (o, s) -> {
        writeNullable(o, s.vmId());
        writeNullable(o, s.hostname());
        writeNullable(o, s.timestamp());
        writeNullable(o, s.device());
        o.writeInt(s.port());
        writeNullable(o, s.linkLayer());
        writeMap(o, s.counters(), LastCodec::writeCounter);
        writeMap(o, s.hwCounters(), LastCodec::writeCounter);
        writeNullable(o, s.unavailableReason());
      });
    }

    @Override
    protected RdmaRates.Last read(DataInputStream in) throws IOException {
      return new RdmaRates.Last(readMap(in, i -> new RdmaCounterSample(readNullableString(i), readNullableString(i),
          readNullableInstant(i), readNullableString(i), i.readInt(), readNullableString(i),
          readMap(i, LastCodec::readCounter), readMap(i, LastCodec::readCounter), readNullableString(i))));
    }

    private static void writeCounter(Out out, CounterReading c) {
      writeNullable(out, c.value());
      writeNullable(out, c.state());
      writeNullable(out, c.reason());
    }

    private static CounterReading readCounter(DataInputStream in) throws IOException {
      return new CounterReading(readNullableLong(in), readNullableEnum(in, CounterState.class),
          readNullableString(in));
    }
  }

}
