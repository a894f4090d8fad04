package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.collectors.vcenter.VmwareLogParser.Stun;
import io.stunwatch.model.LogMessage;
import io.stunwatch.model.StunObservation.StunSource;
import io.stunwatch.testsupport.SharedFixtures;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

class VmwareLogParserTest {

  private final VmwareLogParser parser = new VmwareLogParser();

  @Test
  void allThreeLineGenerationsGiveTheStun() {
    List<Stun> s = parser.parse(String.join("\n",
        "2015-10-27T22:01:42.149Z| vcpu-0| I120: Checkpoint_Unstun: vm stopped for 188405 us",
        "2012-03-01T10:00:00.500Z| vcpu-0| Checkpoint_Unstun: vm stopped for 2000000 us",
        "2023-04-15T08:52:34.879Z In(05) vcpu-0 - Checkpoint_Unstun: vm stopped for 18500 us"));
    assertThat(s).extracting(Stun::stunMicros).containsExactly(188405L, 2000000L, 18500L);
    assertThat(s).extracting(Stun::timestamp).containsExactly(Instant.parse("2015-10-27T22:01:42.149Z"),
        Instant.parse("2012-03-01T10:00:00.500Z"), Instant.parse("2023-04-15T08:52:34.879Z"));
    assertThat(s).extracting(Stun::lineNumber).containsExactly(1, 2, 3);
    assertThat(s).allSatisfy(x -> assertThat(x.source()).isEqualTo(StunSource.CHECKPOINT_UNSTUN));
  }

  @Test
  void theTimeToStopIsAPhaseNotAStunAndTheMigrationIdIsFound() {
    VmwareLogParser.Log log = parser.read(String.join("\n",
        "2026-11-21T12:00:00.000Z In(05) vmx - MigrateVMXdrToSpec: type: 1 mid=7958ea7f2d34d435 uuid=x",
        "2026-11-21T12:00:10.551Z In(05) vmx - Migrate: VM starting stun, waiting 100 seconds for go/no-go message.",
        "2026-11-21T12:00:10.626Z In(05) vcpu-0 - Migrate: VM successfully stunned",
        "2026-11-21T12:00:41.536Z In(05) vcpu-0 - Checkpoint_Unstun: vm stopped for 30910000 us"));
    assertThat(log.stuns()).extracting(Stun::stunMicros, Stun::source, Stun::migrationId)
        .containsExactly(Tuple.tuple(30_910_000L, StunSource.CHECKPOINT_UNSTUN, "8743996508480001077"));
    assertThat(log.vmotions()).singleElement().satisfies(v -> {
      assertThat(v.vmotionId()).isEqualTo("8743996508480001077");
      assertThat(v.stunStart()).isEqualTo(Instant.parse("2026-11-21T12:00:10.551Z"));
      assertThat(v.stunned()).isEqualTo(Instant.parse("2026-11-21T12:00:10.626Z"));
      assertThat(v.unstun()).isEqualTo(Instant.parse("2026-11-21T12:00:41.536Z"));
      assertThat(v.stunMicros()).isEqualTo(30_910_000L);
      assertThat(v.lineNumber()).isEqualTo(1);
      assertThat(v.failures()).isEmpty();
    });
  }

  /** A successful vMotion as ESXi 6.x and 8.x write it: the source's rotated log, then the destination's. */
  @Test
  void bothHeaderFormatsGiveEveryPhaseWithItsLine() {
    for (String[] format : new String[][] {{"| vmx| I125: ", "| vcpu-0| I125: "}, {" In(05) vmx - ",
        " In(05) vcpu-0 - "}}) {
      String vmx = format[0];
      String vcpu = format[1];
      VmwareLogParser.Log source = parser.read(String.join("\n",
          "2026-11-21T12:00:00.000Z" + vmx + "Received migrate 'to' request for mid id 1446046703473901, src ip "
              + "<10.0.0.2>, dst ip <10.0.0.3>.",
          "2026-11-21T12:00:00.001Z" + vmx + "MigrateSetState: Transitioning from state MIGRATE_NONE (0) to "
              + "MIGRATE_TO_VMX_PRECOPY (1).",
          "2026-11-21T12:00:00.002Z" + vmx + "Ethernet0 MAC Address: 00:50:56:a3:56:19",
          "2026-11-21T12:01:30.000Z" + vmx + "Migrate: VM starting stun, waiting 100 seconds for go/no-go message.",
          "2026-11-21T12:01:30.080Z" + vcpu + "Migrate: VM successfully stunned",
          "2026-11-21T12:01:58.000Z" + vmx + "Migrate: Remote Log: Destination waited for 88.50 seconds."));
      VmwareLogParser.Log destination = parser.read(String.join("\n",
          "2026-11-21T12:01:30.100Z" + vmx + "CPT: Restoring checkpoint (null)",
          "2026-11-21T12:01:30.120Z" + vmx + "Migrate_Open: Restoring from <10.0.0.2> with migration id "
              + "1446046703473901",
          "2026-11-21T12:01:58.200Z" + vcpu + "Checkpoint_Unstun: vm stopped for 28100000 us"));
      assertThat(source.stuns()).as(vmx).isEmpty();
      assertThat(source.vmotions()).as(vmx).singleElement().satisfies(v -> {
        assertThat(v.vmotionId()).isEqualTo("1446046703473901");
        assertThat(v.precopyStart()).isEqualTo(Instant.parse("2026-11-21T12:00:00Z"));
        assertThat(v.stunStart()).isEqualTo(Instant.parse("2026-11-21T12:01:30Z"));
        assertThat(v.stunned()).isEqualTo(Instant.parse("2026-11-21T12:01:30.080Z"));
        assertThat(v.destinationWaitSeconds()).isEqualTo(88.5);
        assertThat(v.timestamp()).isEqualTo(Instant.parse("2026-11-21T12:01:58Z"));
        assertThat(v.lineNumber()).isEqualTo(1);
      });
      assertThat(destination.vmotions()).as(vmx).singleElement().satisfies(v -> {
        assertThat(v.vmotionId()).isEqualTo("1446046703473901");
        assertThat(v.restoreStart()).isEqualTo(Instant.parse("2026-11-21T12:01:30.120Z"));
        assertThat(v.unstun()).isEqualTo(Instant.parse("2026-11-21T12:01:58.200Z"));
        assertThat(v.stunMicros()).isEqualTo(28_100_000L);
        assertThat(v.lineNumber()).isEqualTo(2);
      });
      assertThat(destination.stuns()).extracting(Stun::lineNumber, Stun::migrationId)
          .containsExactly(Tuple.tuple(3, "1446046703473901"));
    }
  }

  @Test
  void twoVmotionsInOneLogAreTwoAndASnapshotStunIsNoVmotion() {
    VmwareLogParser.Log log = parser.read(String.join("\n",
        "2026-11-21T10:00:00.000Z| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 188405 us",
        "2026-11-21T12:00:00.000Z| vmx| I125: MigrateSetState: Transitioning from state 0 to 1.",
        "2026-11-21T12:00:00.000Z| vmx| I125: MigrateSetInfo: state=1 srcIp=<10.0.0.2> mid=11 priority=high",
        "2026-11-21T12:00:20.000Z| vmx| I125: Migrate: VM starting stun, waiting 100 seconds for go/no-go message.",
        "2026-11-21T13:00:00.000Z| vmx| I125: MigrateSetInfo: state=1 srcIp=<10.0.0.2> mid=12 priority=high",
        "2026-11-21T13:00:00.000Z| vmx| I125: MigrateSetState: Transitioning from state 0 to 1.",
        "2026-11-21T13:00:30.000Z| vmx| I125: Migrate: VM starting stun, waiting 100 seconds for go/no-go message."));
    assertThat(log.vmotions()).extracting(VmwareLogParser.Vmotion::vmotionId, VmwareLogParser.Vmotion::precopyStart,
            VmwareLogParser.Vmotion::stunStart, VmwareLogParser.Vmotion::lineNumber)
        .containsExactly(
            Tuple.tuple("11", Instant.parse("2026-11-21T12:00:00Z"), Instant.parse("2026-11-21T12:00:20Z"), 2),
            Tuple.tuple("12", Instant.parse("2026-11-21T13:00:00Z"), Instant.parse("2026-11-21T13:00:30Z"), 5));
    assertThat(log.stuns()).extracting(Stun::stunMicros).containsExactly(188405L);
  }

  @Test
  void aFailedVmotionKeepsItsMessageListAndAGuestCannotWriteOne() {
    VmwareLogParser.Log log = parser.read(String.join("\n",
        "2026-11-21T12:00:00.000Z In(05) vmx - MigrateSetInfo: state=1 srcIp=<10.0.0.2> mid=42 priority=high",
        "2026-11-21T12:00:00.000Z In(05) vmx - Guest: [msg.migrate.fail.dst] forged by the guest",
        "2026-11-21T12:00:10.000Z In(05) vmx - Migrate: VM starting stun, waiting 100 seconds for go/no-go message.",
        "2026-11-21T12:01:50.000Z In(05) vmx - Migrate: Caching migration error message list:",
        "2026-11-21T12:01:50.000Z In(05) vmx - [msg.checkpoint.migration.maxSwitchoverTimeExceeded] The migration "
            + "has exceeded the maximum switchover time of 100 second(s).",
        "2026-11-21T12:01:50.000Z In(05) vmx - Migrate: Attempting to continue running on the source.",
        "2026-11-21T12:01:50.100Z In(05) vmx - [msg.unrelated] not in the list any more"));
    assertThat(log.vmotions()).singleElement().satisfies(v -> {
      assertThat(v.vmotionId()).isEqualTo("42");
      assertThat(v.failures()).extracting(LogMessage::id)
          .containsExactly("msg.checkpoint.migration.maxSwitchoverTimeExceeded");
      assertThat(v.failures().get(0).text()).startsWith("The migration has exceeded the maximum switchover time");
    });
  }

  @Test
  void parseAfterGivesOnlyTheTimestampedStunsNewerThanTheLastPublished() {
    String log = String.join("\n",
        "2026-11-21T12:00:41.536Z In(05) vcpu-0 - Checkpoint_Unstun: vm stopped for 30910000 us",
        "vmx| Checkpoint_Unstun: vm stopped for 1000 us",
        "2026-11-21T13:00:05.000Z In(05) vcpu-0 - Checkpoint_Unstun: vm stopped for 2000000 us");
    assertThat(parser.parseAfter(log, null)).extracting(Stun::stunMicros).containsExactly(30910000L, 2000000L);
    assertThat(parser.parseAfter(log, Instant.parse("2026-11-21T12:00:41.536Z")))
        .extracting(Stun::stunMicros, Stun::lineNumber)
        .containsExactly(Tuple.tuple(2000000L, 3));
    assertThat(parser.parseAfter(log, Instant.parse("2026-11-21T13:00:05Z"))).isEmpty();
  }

  @Test
  void recordsRunTogetherOnOneLineAreAllFound() {
    List<Stun> s = parser.parse("vmx| Checkpoint_Unstun: vm stopped for 3711025 us vmx| Checkpoint_Unstun: vm "
        + "stopped for 574655 us vmx| Checkpoint_Unstun: vm stopped for 2191061 us Create snapshot");
    assertThat(s).extracting(Stun::stunMicros).containsExactly(3711025L, 574655L, 2191061L);
    assertThat(s).allSatisfy(x -> assertThat(x.timestamp()).isNull());
  }

  @Test
  void sharedFixturesGiveTheirStunTimesAndMigrationIds() throws Exception {
    Path dir = SharedFixtures.dir("vmware-log");
    assertThat(parser.parse(Files.readString(dir.resolve("virten-2015-snapshot-stun.txt"))))
        .extracting(Stun::stunMicros).contains(188405L);
    List<Stun> hotAdd = parser.parse(Files.readString(dir.resolve("broadcom-kb-432796-hotadd-stun.txt")));
    assertThat(hotAdd).extracting(Stun::stunMicros).containsExactly(18500L);
    assertThat(hotAdd.get(0).timestamp()).as("timestamps are redacted in the KB").isNull();
    assertThat(parser.parse(Files.readString(dir.resolve("codenotary-opvizor-snapshot-consolidation-unstun.txt"))))
        .extracting(Stun::stunMicros).containsExactly(3711025L, 574655L, 2191061L);
    for (Path f : Files.list(dir).toList()) {
      parser.parse(Files.readString(f)); // no file makes it throw
    }
    String vic = Files.readString(dir.resolve("github-vmware-vic-issue-6701.txt"));
    assertThat(parser.parse(vic + "\n2018-02-15T02:55:02.000Z| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 1 us"))
        .last().extracting(Stun::migrationId).isEqualTo("1518663295492956");
  }

  @Test
  void sharedFixturesGiveTheirVmotions() throws Exception {
    Path dir = SharedFixtures.dir("vmware-log");
    // KB 320352: a vGPU VM's source log, the move failed at the switchover limit; its timestamps are redacted
    VmwareLogParser.Log stuck = parser.read(Files.readString(dir.resolve("broadcom-kb-320352-vgpu-vmotion-stuck.txt")));
    assertThat(stuck.vmotions()).singleElement().satisfies(v -> {
      assertThat(v.destinationWaitSeconds()).isEqualTo(208.42);
      assertThat(v.failures()).extracting(LogMessage::id)
          .containsExactly("msg.checkpoint.migration.maxSwitchoverTimeExceeded");
      assertThat(v.lineNumber()).isEqualTo(5);
      assertThat(v.timestamp()).isNull();
    });
    // KB 436882: the destination's Migrate_Open, twice, with the id vmkernel.log prints
    assertThat(parser.read(Files.readString(dir.resolve("broadcom-kb-436882-vmotion-stun-time.txt"))).vmotions())
        .singleElement().satisfies(v -> {
          assertThat(v.vmotionId()).isEqualTo("1446046703473901");
          assertThat(v.restoreStart()).isEqualTo(Instant.parse("2026-04-14T15:38:20.244Z"));
          assertThat(v.lineNumber()).isEqualTo(4);
        });
    // haewon83: an ESXi 8 source log's start, its hex mid the same vMotion as its decimal one
    assertThat(parser.read(Files.readString(dir.resolve("haewon83-tistory-108-how-vmotion-works.txt"))).vmotions())
        .singleElement().satisfies(v -> {
          assertThat(v.vmotionId()).isEqualTo("8743996508480001077");
          assertThat(v.precopyStart()).isEqualTo(Instant.parse("2023-04-15T08:52:34.879Z"));
        });
    // KB 432796: a hot add stuns the VM through the same lines, with no migration id, precopy or restore: no vMotion
    VmwareLogParser.Log hotAdd = parser.read(Files.readString(dir.resolve("broadcom-kb-432796-hotadd-stun.txt")));
    assertThat(hotAdd.stuns()).extracting(Stun::source).containsOnly(StunSource.CHECKPOINT_UNSTUN);
    assertThat(hotAdd.vmotions()).isEmpty();
  }

  private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");

  /** Bad lines reported by the parser: "line: why". */
  private final List<String> bad = new ArrayList<>();

  private List<Stun> read(byte[] log) throws IOException {
    return read(new ByteArrayInputStream(log));
  }

  private List<Stun> read(InputStream log) throws IOException {
    return parser.parse(log, NOW, (line, why) -> bad.add(line + ": " + why));
  }

  private static byte[] lines(String... lines) {
    return (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aTwentyDigitFigureIsABadLineAndTheStunsAroundItCount() throws Exception {
    List<Stun> s = read(lines(
        "2026-11-26T10:00:00.000Z| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 2000000 us",
        "2026-11-26T10:05:00.000Z| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 99999999999999999999 us",
        "2026-11-26T10:06:00.000Z| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 3600000001 us",
        "2026-11-26T10:10:00.000Z| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 3000000 us"));
    assertThat(s).extracting(Stun::stunMicros, Stun::lineNumber)
        .containsExactly(Tuple.tuple(2000000L, 1), Tuple.tuple(3000000L, 4));
    assertThat(bad).hasSize(2);
    assertThat(bad.get(0)).startsWith("2: ").contains("99999999999999999999").contains("over 60 min");
    assertThat(bad.get(1)).startsWith("3: ").contains("3600000001");
  }

  @Test
  void aLineDatedInTheFutureIsABadLineAndHidesNothingAfterIt() throws Exception {
    List<Stun> s = read(lines(
        "2099-01-01T00:00:05.000Z| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 2750000 us",
        "2026-11-26T11:59:00.000Z In(05) vmx - Migrate: VM starting stun, waiting 100 seconds for go/no-go message.",
        "2099-01-01T00:00:06.000Z In(05) vcpu-0 - Migrate: VM successfully stunned",
        "2026-11-26T11:59:30.000Z In(05) vcpu-0 - Checkpoint_Unstun: vm stopped for 30000000 us"));
    assertThat(s).singleElement().satisfies(x -> {
      assertThat(x.stunMicros()).isEqualTo(30_000_000L);
      assertThat(x.timestamp()).isEqualTo(Instant.parse("2026-11-26T11:59:30Z"));
    });
    assertThat(bad).hasSize(2).allSatisfy(b -> assertThat(b).contains("2099-01-01").contains("after " + NOW));
    assertThat(bad.get(0)).startsWith("1: ");
    assertThat(VmwareLogParser.after(s, null)).as("what a collector remembers as published stays in the past")
        .allSatisfy(x -> assertThat(x.timestamp()).isBeforeOrEqualTo(NOW));
  }

  @Test
  void aLineThatIsNotUtf8IsABadLineAndTheNextOneStillCounts() throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    log.writeBytes("2026-11-26T10:00:00.000Z| vmx| I125: Migrate_Open: Restoring with migration id 77\n"
        .getBytes(StandardCharsets.UTF_8));
    log.writeBytes("2026-11-26T10:00:01.000Z| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 5 us \u00e9"
        .getBytes(StandardCharsets.UTF_8));
    log.writeBytes(new byte[] {(byte) 0xC3, (byte) 0x28, (byte) 0xFF, '\n'});
    log.writeBytes("2026-11-26T10:00:02.000Z| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 1500000 us \u00e9\r\n"
        .getBytes(StandardCharsets.UTF_8));
    List<Stun> s = read(log.toByteArray());
    assertThat(s).singleElement().satisfies(x -> {
      assertThat(x.stunMicros()).isEqualTo(1_500_000L);
      assertThat(x.lineNumber()).isEqualTo(3);
      assertThat(x.migrationId()).isEqualTo("77");
    });
    assertThat(bad).containsExactly("2: not valid UTF-8");
  }

  @Test
  void whatTheGuestWritesIsNeverAFigureNorAMigrationId() throws Exception {
    // VMware Tools' "log" RPC lands in vmware.log behind the vmx's own header and a "Guest:" prefix
    List<Stun> s = read(lines(
        "2026-11-26T10:00:00.000Z| vmx| I125: Migrate_Open: Restoring from <10.0.0.2> with migration id 1446046703473901",
        "2026-11-26T10:00:01.000Z| vcpu-1| I125: Guest: Checkpoint_Unstun: vm stopped for 1 us",
        "2026-11-26T10:00:02.000Z| vcpu-1| I125: Guest: 2026-11-26T10:00:02.000Z| vcpu-0| I125: Checkpoint_Unstun: vm "
            + "stopped for 2 us",
        "2026-11-26T10:00:03.000Z In(05) vcpu-1 - Guest: with migration id 666 mid=deadbeefdeadbeef",
        "2026-11-26T10:00:04.000Z In(05) vcpu-1 - GuestRpc: Migrate: VM starting stun",
        "2026-11-26T10:00:05.000Z| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 800000 us"));
    assertThat(s).singleElement().satisfies(x -> {
      assertThat(x.stunMicros()).isEqualTo(800_000L);
      assertThat(x.migrationId()).isEqualTo("1446046703473901");
      assertThat(x.source()).isEqualTo(StunSource.CHECKPOINT_UNSTUN);
    });
  }

  @Test
  void aGibibyteLogWithAHugeLineIsReadAsAStreamAndItsLastStunFound() throws Exception {
    long size = 1L << 30;
    byte[] tail = lines("", "2026-11-26T11:00:00.000Z In(05) vcpu-0 - Checkpoint_Unstun: vm stopped for 4200000 us");
    List<Stun> s = read(new GeneratedLog(size, tail));
    assertThat(s).singleElement().satisfies(x -> {
      assertThat(x.stunMicros()).isEqualTo(4_200_000L);
      assertThat(x.lineNumber()).isGreaterThan(1_000_000);
    });
    assertThat(bad).as("the 256 MiB line without a newline").singleElement()
        .satisfies(b -> assertThat(b).endsWith("longer than " + VmwareLogParser.MAX_LINE_BYTES + " bytes"));
  }

  @Test
  void tenThousandMutatedLinesNeverThrowAndGiveOnlyPlausibleStuns() throws Exception {
    String[] seeds = {
        "2026-11-26T10:00:00.000Z| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 188405 us",
        "2026-11-26T10:00:00.500Z| vcpu-0| Checkpoint_Unstun: vm stopped for 2000000 us",
        "2026-11-26T10:00:34.879Z In(05) vcpu-0 - Checkpoint_Unstun: vm stopped for 18500 us",
        "2026-11-26T10:00:10.551Z In(05) vmx - Migrate: VM starting stun, waiting 100 seconds for go/no-go message.",
        "2026-11-26T10:00:10.626Z In(05) vcpu-0 - Migrate: VM successfully stunned",
        "2026-11-26T10:00:00.000Z In(05) vmx - MigrateVMXdrToSpec: type: 1 mid=7958ea7f2d34d435 uuid=x",
        "2026-11-26T10:00:01.542Z| vmx| I125: Migrate_Open: Restoring from <10.193.58.103> with migration id 15186632",
        "vmx| Checkpoint_Unstun: vm stopped for 3711025 us vmx| Checkpoint_Unstun: vm stopped for 574655 us"};
    Random random = new Random(20261126L); // fixed: a failure reproduces
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    int lines = 10_000;
    for (int i = 0; i < lines; i++) {
      byte[] line = mutate(seeds[random.nextInt(seeds.length)].getBytes(StandardCharsets.UTF_8), random);
      all.writeBytes(line);
      all.write('\n');
      List<String> lineBad = new ArrayList<>();
      List<Stun> one = parser.parse(new ByteArrayInputStream(line), NOW, (n, why) -> lineBad.add(why));
      assertThat(one.size() + lineBad.size()).as("line %d: %s", i, new String(line, StandardCharsets.ISO_8859_1))
          .isLessThanOrEqualTo(4); // a doubled line of two records holds four
    }
    List<Stun> s = read(all.toByteArray());
    assertThat(s).as("the mutations keep many figures whole").hasSizeGreaterThan(lines / 10);
    assertThat(bad).as("and break many").hasSizeGreaterThan(lines / 100);
    assertThat(s).allSatisfy(x -> {
      assertThat(x.stunMicros()).isBetween(0L, VmwareLogParser.MAX_STUN.toNanos() / 1000);
      assertThat(x.lineNumber()).isBetween(1, lines);
      if (x.timestamp() != null) {
        assertThat(x.timestamp()).isBeforeOrEqualTo(NOW);
      }
    });
    assertThat(bad).allSatisfy(b -> assertThat(Long.parseLong(b.substring(0, b.indexOf(':')))).isBetween(1L,
        (long) lines));
  }

  /** One random change of the kind a corrupted or hostile log shows. */
  private static byte[] mutate(byte[] line, Random r) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int at = r.nextInt(line.length + 1);
    switch (r.nextInt(8)) {
      case 0 -> { // flip a byte to anything but a newline, invalid UTF-8 included
        byte[] copy = line.clone();
        int b = r.nextInt(255);
        copy[Math.min(at, copy.length - 1)] = (byte) (b == '\n' ? 255 : b);
        return copy;
      }
      case 1 -> { // a run of digits: huge figures, year 99999
        out.write(line, 0, at);
        out.writeBytes("9".repeat(1 + r.nextInt(30)).getBytes(StandardCharsets.US_ASCII));
        out.write(line, at, line.length - at);
      }
      case 2 -> out.write(line, 0, at); // truncated
      case 3 -> { // a future or impossible date
        String s = new String(line, StandardCharsets.ISO_8859_1);
        String[] dates = {"2099-01-01", "9999-12-31", "2026-13-45", "0000-00-00", "2026-11-26"};
        return s.replace("2026-11-26", dates[r.nextInt(dates.length)]).getBytes(StandardCharsets.ISO_8859_1);
      }
      case 4 -> { // a Guest prefix or a second header in the message
        String s = new String(line, StandardCharsets.ISO_8859_1);
        return s.replaceFirst("(I125: | - |vmx\\| )", "$1Guest: ").getBytes(StandardCharsets.ISO_8859_1);
      }
      case 5 -> { // control characters and NULs
        out.write(line, 0, at);
        out.writeBytes(new byte[] {0, 1, '\r', 0x1b, (byte) 0x80});
        out.write(line, at, line.length - at);
      }
      case 6 -> { // doubled
        out.writeBytes(line);
        out.write(' ');
        out.writeBytes(line);
      }
      default -> { // a negative or fractional figure
        String s = new String(line, StandardCharsets.ISO_8859_1);
        return s.replace("for ", r.nextBoolean() ? "for -" : "for 0.").getBytes(StandardCharsets.ISO_8859_1);
      }
    }
    return out.toByteArray();
  }

  /** {@code size} bytes of ordinary lines with a 256 MiB line without a newline in the middle, then {@code tail}. */
  private static final class GeneratedLog extends InputStream {
    private static final byte[] LINE = "2026-11-26T10:00:00.000Z In(05) vmx - Tools: running status rotated.\n"
        .getBytes(StandardCharsets.US_ASCII);
    private final long fill;
    private final long hugeFrom;
    private final long hugeTo;
    private final byte[] tail;
    private long pos;

    GeneratedLog(long size, byte[] tail) {
      this.fill = size - tail.length;
      this.hugeFrom = fill / 2;
      this.hugeTo = hugeFrom + (256L << 20);
      this.tail = tail;
    }

    @Override
    public int read() {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (pos >= fill + tail.length) {
        return -1;
      }
      int n = 0;
      while (n < len && pos < fill + tail.length) {
        if (pos >= fill) {
          b[off + n] = tail[(int) (pos - fill)];
        } else if (pos >= hugeFrom && pos < hugeTo) {
          b[off + n] = pos == hugeTo - 1 ? (byte) '\n' : (byte) 'x';
        } else {
          b[off + n] = LINE[(int) (pos % LINE.length)];
        }
        n++;
        pos++;
      }
      return n;
    }
  }
}
