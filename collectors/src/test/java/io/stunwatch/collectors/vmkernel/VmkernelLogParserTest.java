package io.stunwatch.collectors.vmkernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.VmotionBandwidth;
import io.stunwatch.testsupport.SharedFixtures;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

class VmkernelLogParserTest {

  private final List<String> bad = new ArrayList<>();
  private final VmkernelLogParser parser = new VmkernelLogParser("esx1", "esx1:/var/log/vmkernel.log",
      (line, why) -> bad.add(line + ": " + why));

  @Test
  void bothHeaderFormatsGiveTheBandwidthPagesAndGoalWithTheirLine() {
    List<VmotionBandwidth> found = parser.parse(String.join("\n",
        "2026-11-21T12:00:00.000Z cpu3:2099543)VMotion: 5426: 11 S: Pre-copy iteration 3",
        "2026-11-21T12:01:30.000Z cpu3:2099543)VMotion: 4650: 11 S: Stopping pre-copy: only 1296 pages left to send, "
            + "which can be sent within the switchover time goal of 0.500 seconds (network bandwidth ~145.404 MB/s, "
            + "101088% t2d)",
        "2026-11-21T13:01:30.000Z In(182) vmkernel: cpu12:2100004)VMotion: 5002: 8743996508480001077 S: Stopping "
            + "pre-copy: only 40961 pages left to send, which can be sent within the switchover time goal of 1.000 "
            + "seconds (network bandwidth ~1180.5 MB/s, 2300% t2d)"));
    assertThat(found).extracting(VmotionBandwidth::vmotionId, VmotionBandwidth::timestamp,
            VmotionBandwidth::bandwidthMBps, VmotionBandwidth::pagesLeft, VmotionBandwidth::switchoverGoalSeconds,
            VmotionBandwidth::lineNumber)
        .containsExactly(
            Tuple.tuple("11", Instant.parse("2026-11-21T12:01:30Z"), 145.404, 1296L, 0.5, 2L),
            Tuple.tuple("8743996508480001077", Instant.parse("2026-11-21T13:01:30Z"), 1180.5, 40961L, 1.0, 3L));
    assertThat(found).allSatisfy(b -> {
      assertThat(b.hostname()).isEqualTo("esx1");
      assertThat(b.logFile()).isEqualTo("esx1:/var/log/vmkernel.log");
    });
    assertThat(bad).isEmpty();
  }

  @Test
  void anImplausibleFigureIsReportedAndSkipped() {
    assertThat(parser.line("2026-11-21T12:01:30.000Z cpu3:2)VMotion: 4650: 11 S: Stopping pre-copy: only 99999999999999"
        + " pages left to send, which can be sent within the switchover time goal of 0.500 seconds (network bandwidth "
        + "~145.404 MB/s, 1% t2d)", 7)).isEmpty();
    assertThat(parser.line("2026-11-21T12:01:30.000Z cpu3:2)VMotion: 4650: 11 S: Stopping pre-copy: only 12 pages "
        + "left to send, which can be sent within the switchover time goal of 0.500 seconds (network bandwidth "
        + "~999999.0 MB/s, 1% t2d)", 8)).isEmpty();
    assertThat(bad).hasSize(2);
    assertThat(bad.get(0)).startsWith("7: vMotion 11: 99999999999999 pages");
    assertThat(bad.get(1)).startsWith("8: ").contains("999999.0 MB/s");
  }

  @Test
  void theBroadcomExcerptGivesItsVmotionDespiteTwoRecordsOnOneLine() throws Exception {
    String kb = Files.readString(SharedFixtures.dir("vmware-log").resolve("broadcom-kb-436882-vmotion-stun-time.txt"));
    assertThat(parser.parse(kb)).singleElement().satisfies(b -> {
      assertThat(b.vmotionId()).isEqualTo("1446046703473901");
      assertThat(b.bandwidthMBps()).isEqualTo(145.404);
      assertThat(b.pagesLeft()).isEqualTo(1296L);
      assertThat(b.timestamp()).isEqualTo(Instant.parse("2026-04-14T15:38:20.160Z"));
      assertThat(b.lineNumber()).isEqualTo(7);
    });
  }
}
