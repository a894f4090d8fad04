package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.VmInventoryEntry;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class StunLogFetcherTest {

  private static final Instant NOW = Instant.parse("2026-11-28T12:00:00Z");
  private static final VmInventoryEntry VM = new VmInventoryEntry("vc", "vm-42", "train-01", "42100000-0000-4000-8000-000000000042", null, null,
      null, "DC0", "[ds1] train-01/train-01.vmx", 16384L, List.of(), null, NOW);

  /** A datastore of files by {@code [ds] path}; a directory lists the names under it. */
  private static final class Datastore extends FakeVcenter {
    final Map<String, String> files = new HashMap<>();
    final List<String> read = new ArrayList<>();
    boolean broken;

    @Override
    public Tail datastoreTail(String datacenter, String datastore, String path, long maxBytes) throws IOException {
      String file = "[" + datastore + "] " + path;
      read.add(file);
      if (broken) {
        throw new IOException("503 from the host");
      }
      String content = files.get(file);
      if (content == null) {
        throw new FileNotFoundException(file);
      }
      byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
      int from = (int) Math.max(0, bytes.length - maxBytes);
      return new Tail(java.util.Arrays.copyOfRange(bytes, from, bytes.length), from);
    }

    @Override
    public List<String> datastoreDirectory(String datacenter, String datastore, String dir) {
      String prefix = "[" + datastore + "] " + dir;
      return files.keySet().stream().filter(f -> f.startsWith(prefix)).map(f -> f.substring(prefix.length()))
          .toList();
    }
  }

  private static String stun(String at, long micros) {
    return at + "| vcpu-0| I125: Checkpoint_Unstun: vm stopped for " + micros + " us\n";
  }

  private final Datastore ds = new Datastore();
  private final List<String> problems = new ArrayList<>();
  private final AtomicInteger skipped = new AtomicInteger();

  private StunLogFetcher fetcher(long tailBytes) {
    return new StunLogFetcher(tailBytes, Clock.fixed(NOW, ZoneOffset.UTC), skipped::incrementAndGet,
        problems::add);
  }

  @Test
  void aStunInTheCurrentLogAfterTheLastOneIsFound() {
    ds.files.put("[ds1] train-01/vmware.log", stun("2026-11-28T10:00:00.000Z", 900_000)
        + stun("2026-11-28T11:00:00.000Z", 2_100_000));
    StunLogFetcher.Found f = fetcher(1 << 20).newStuns(ds, VM, Instant.parse("2026-11-28T10:30:00Z"));
    assertThat(f.file()).isEqualTo("[ds1] train-01/vmware.log");
    assertThat(f.stuns()).extracting(VmwareLogParser.Stun::stunMicros).containsExactly(2_100_000L);
    assertThat(problems).isEmpty();
  }

  @Test
  void whenTheCurrentLogHasNoNewStunTheNewestRotatedOneThatHasIsRead() {
    ds.files.put("[ds1] train-01/vmware.log", "2026-11-28T11:59:00.000Z| vmx| I125: Log for VMware ESX\n");
    ds.files.put("[ds1] train-01/vmware-1.log", stun("2026-11-28T09:00:00.000Z", 1_000));
    ds.files.put("[ds1] train-01/vmware-2.log", stun("2026-11-28T11:00:00.000Z", 5_000_000));
    ds.files.put("[ds1] train-01/vmware-10.log", stun("2026-11-28T08:00:00.000Z", 7));
    StunLogFetcher.Found f = fetcher(1 << 20).newStuns(ds, VM, Instant.parse("2026-11-28T10:00:00Z"));
    assertThat(f.file()).isEqualTo("[ds1] train-01/vmware-2.log");
    assertThat(f.stuns()).extracting(VmwareLogParser.Stun::stunMicros).containsExactly(5_000_000L);
    assertThat(ds.read).as("newest (highest N) first, stopping at the first with a stun")
        .containsExactly("[ds1] train-01/vmware.log", "[ds1] train-01/vmware-10.log", "[ds1] train-01/vmware-2.log");
  }

  @Test
  void onlyTheTailIsReadAndItsLinesAreCountedFromTheByteTheyStartAt() {
    String first = stun("2026-11-28T10:00:00.000Z", 1_000);
    String second = stun("2026-11-28T11:00:00.000Z", 2_000);
    ds.files.put("[ds1] train-01/vmware.log", first + second);
    StunLogFetcher.Found f = fetcher(second.length() + 10).newStuns(ds, VM, Instant.parse("2026-11-28T09:00:00Z"));
    assertThat(f.stuns()).extracting(VmwareLogParser.Stun::stunMicros).containsExactly(2_000L);
    assertThat(f.file()).isEqualTo("[ds1] train-01/vmware.log from byte " + first.length());
  }

  @Test
  void aForgedFutureLineIsSkippedCountedAndSaidWithItsFileAndLine() {
    ds.files.put("[ds1] train-01/vmware.log", stun("2026-11-28T11:00:00.000Z", 2_000)
        + stun("2027-01-01T00:00:00.000Z", 1));
    StunLogFetcher.Found f = fetcher(1 << 20).newStuns(ds, VM, Instant.parse("2026-11-28T09:00:00Z"));
    assertThat(f.stuns()).extracting(VmwareLogParser.Stun::stunMicros).containsExactly(2_000L);
    assertThat(skipped).hasValue(1);
    assertThat(problems).singleElement().asString().startsWith("[ds1] train-01/vmware.log:2: skipped:");
  }

  @Test
  void aVmxPathNotOnADatastoreOrALogThatCannotBeReadIsSaidAndGivesNoStun() {
    VmInventoryEntry odd = new VmInventoryEntry("vc", "vm-43", "odd", null, null, null, null, "DC0",
        "/vmfs/volumes/ds1/odd.vmx", null, List.of(), null, NOW);
    assertThat(fetcher(1 << 20).newStuns(ds, odd, NOW.minusSeconds(60)).stuns()).isEmpty();
    assertThat(problems).singleElement().asString().contains("vmx path of").contains("/vmfs/volumes/ds1/odd.vmx");

    ds.broken = true;
    assertThat(fetcher(1 << 20).newStuns(ds, VM, NOW.minusSeconds(60)).stuns()).isEmpty();
    assertThat(problems).last().asString().isEqualTo("cannot read [ds1] train-01/vmware.log of " + VM.key()
        + ": 503 from the host");
  }
}
