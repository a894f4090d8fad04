package io.stunwatch.collectors.hosts;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.testsupport.ManualClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileHostDirectoryTest {

  @TempDir
  Path dir;

  @Test
  void eachLineIsAHostWithItsAddressAndBadLinesAreCountedAndSkipped() throws Exception {
    Path f = dir.resolve("hosts");
    Files.writeString(f, """
        # GPU hosts
        esx01.lab
        esx02.lab  10.0.0.2        # by address
        esx03.lab  10.0.0.3:2222
        esx04.lab  [fd00::4]:2200
        esx05.lab  a b
        esx06.lab  10.0.0.6:99999
        esx01.lab  10.0.0.1
        """);
    AtomicInteger bad = new AtomicInteger();
    FileHostDirectory d = new FileHostDirectory(f, 22, Clock.systemUTC(), bad::incrementAndGet);
    assertThat(d.hosts()).containsExactly(
        java.util.Map.entry("esx01.lab", new HostAddress("esx01.lab", "esx01.lab", 22)),
        java.util.Map.entry("esx02.lab", new HostAddress("esx02.lab", "10.0.0.2", 22)),
        java.util.Map.entry("esx03.lab", new HostAddress("esx03.lab", "10.0.0.3", 2222)),
        java.util.Map.entry("esx04.lab", new HostAddress("esx04.lab", "fd00::4", 2200)));
    assertThat(bad).as("three words, a port out of range, a name listed twice").hasValue(3);
  }

  @Test
  void aChangedFileIsRereadAndAVanishedOneKeepsTheHostsLastRead() throws Exception {
    Path f = dir.resolve("hosts");
    Files.writeString(f, "esx01\n");
    ManualClock clock = new ManualClock(Instant.parse("2026-11-28T10:00:00Z"));
    FileHostDirectory d = new FileHostDirectory(f, 22, clock, () -> { });
    assertThat(d.hosts()).containsOnlyKeys("esx01");
    Files.writeString(f, "esx01\nesx02\n");
    Files.setLastModifiedTime(f, FileTime.from(Instant.parse("2030-01-01T00:00:00Z")));
    assertThat(d.hosts()).as("read at most every two seconds").containsOnlyKeys("esx01");
    clock.advance(Duration.ofSeconds(3));
    assertThat(d.hosts()).containsOnlyKeys("esx01", "esx02");
    Files.delete(f);
    clock.advance(Duration.ofSeconds(3));
    assertThat(d.hosts()).containsOnlyKeys("esx01", "esx02");
  }
}
