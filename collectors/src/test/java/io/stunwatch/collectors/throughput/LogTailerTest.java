package io.stunwatch.collectors.throughput;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogTailerTest {

  @TempDir
  Path dir;

  private void append(Path f, String s) throws Exception {
    Files.writeString(f, s, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  @Test
  void followsAppendsAndKeepsAPartialLineForLater() throws Exception {
    Path log = dir.resolve("train.log");
    append(log, "old line\n");
    try (LogTailer t = new LogTailer(log, true)) {
      assertThat(t.poll()).as("live tail starts at the end").isEmpty();
      append(log, "a\nb\npart");
      assertThat(t.poll()).containsExactly("a", "b");
      append(log, "ial\r\n");
      assertThat(t.poll()).containsExactly("partial");
    }
  }

  @Test
  void followsRenameRotationWithoutLosingTheOldFilesLastLines() throws Exception {
    Path log = dir.resolve("train.log");
    append(log, "1\n");
    try (LogTailer t = new LogTailer(log, false)) {
      assertThat(t.poll()).containsExactly("1");
      append(log, "2\n");                       // written just before rotation, not yet read
      Files.move(log, dir.resolve("train.log.1"));
      append(log, "3\n");                       // the new file
      assertThat(t.poll()).containsExactly("2", "3");
      append(log, "4\n");
      assertThat(t.poll()).containsExactly("4");
    }
  }

  @Test
  void followsCopyTruncateRotation() throws Exception {
    Path log = dir.resolve("train.log");
    append(log, "1\n2\n");
    try (LogTailer t = new LogTailer(log, false)) {
      assertThat(t.poll()).containsExactly("1", "2");
      Files.writeString(log, "x\n");            // truncated in place and rewritten
      assertThat(t.poll()).containsExactly("x");
    }
  }

  @Test
  void aMissingFileIsWaitedFor() throws Exception {
    Path log = dir.resolve("later.log");
    try (LogTailer t = new LogTailer(log, true)) {
      assertThat(t.poll()).isEmpty();
      append(log, "first\n");
      assertThat(t.poll()).as("a file created after start is read from its start").containsExactly("first");
    }
  }
}
