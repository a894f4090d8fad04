package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.collectors.vcenter.VmwareLogParser.Stun;
import io.stunwatch.model.StunObservation.StunSource;
import io.stunwatch.testsupport.SharedFixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
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
  void theStunPairAndTheMigrationIdAreFound() {
    List<Stun> s = parser.parse(String.join("\n",
        "2026-11-21T12:00:00.000Z In(05) vmx - MigrateVMXdrToSpec: type: 1 mid=7958ea7f2d34d435 uuid=x",
        "2026-11-21T12:00:10.551Z In(05) vmx - Migrate: VM starting stun, waiting 100 seconds for go/no-go message.",
        "2026-11-21T12:00:10.626Z In(05) vcpu-0 - Migrate: VM successfully stunned",
        "2026-11-21T12:00:41.536Z In(05) vcpu-0 - Checkpoint_Unstun: vm stopped for 30910000 us"));
    assertThat(s).hasSize(2);
    assertThat(s.get(0).source()).isEqualTo(StunSource.MIGRATE_STUN_PAIR);
    assertThat(s.get(0).stunMicros()).isEqualTo(75_000L);
    assertThat(s.get(1).stunMicros()).isEqualTo(30_910_000L);
    assertThat(s).allSatisfy(x -> assertThat(x.migrationId()).isEqualTo("8743996508480001077"));
  }

  @Test
  void parseAfterGivesOnlyTheTimestampedStunsNewerThanTheLastPublished() {
    String log = String.join("\n",
        "2026-11-21T12:00:41.536Z In(05) vcpu-0 - Checkpoint_Unstun: vm stopped for 30910000 us",
        "vmx| Checkpoint_Unstun: vm stopped for 1000 us",
        "2026-11-21T13:00:05.000Z In(05) vcpu-0 - Checkpoint_Unstun: vm stopped for 2000000 us");
    assertThat(parser.parseAfter(log, null)).extracting(Stun::stunMicros).containsExactly(30910000L, 2000000L);
    assertThat(parser.parseAfter(log, java.time.Instant.parse("2026-11-21T12:00:41.536Z")))
        .extracting(Stun::stunMicros, Stun::lineNumber)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(2000000L, 3));
    assertThat(parser.parseAfter(log, java.time.Instant.parse("2026-11-21T13:00:05Z"))).isEmpty();
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
}
