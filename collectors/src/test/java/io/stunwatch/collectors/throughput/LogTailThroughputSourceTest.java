package io.stunwatch.collectors.throughput;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.collectors.worker.ReplayRefusedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogTailThroughputSourceTest {

  @TempDir
  Path dir;

  private static ThroughputConfig config(Pattern custom) {
    return new ThroughputConfig(null, custom, "images/sec", null, true, Duration.ofSeconds(1));
  }

  @Test
  void textWithNoThroughputLineIsRefusedAsNoRecordingWithTheFormsThatAreRead() throws Exception {
    Path notes = dir.resolve("PROVENANCE.md");
    Files.writeString(notes, "# Provenance\n\nCaptured from a public issue, 2025-03-01, under its licence.\n");
    assertThatThrownBy(() -> LogTailThroughputSource.requireThroughput(notes, config(null), ZoneOffset.UTC))
        .isInstanceOf(ReplayRefusedException.class)
        .hasMessageStartingWith("text in no form Stunwatch reads")
        .hasMessageContaining("images/sec: 245.3 +/- 0.0")
        .hasMessageContaining("throughput.pattern")
        .hasMessageContaining("nvidia-smi");
  }

  @Test
  void aLogWithABuiltInOrConfiguredThroughputLineIsATrainingLog() throws Exception {
    Path tf = dir.resolve("train.log");
    Files.writeString(tf, "starting\n".repeat(1000) + "10\timages/sec: 245.3 +/- 0.0 (jitter = 0.0)\t7.5\n");
    assertThatCode(() -> LogTailThroughputSource.requireThroughput(tf, config(null), ZoneOffset.UTC))
        .doesNotThrowAnyException();
    Path own = dir.resolve("own.log");
    Files.writeString(own, "epoch 1 tokens/s=5120.5\n");
    assertThatThrownBy(() -> LogTailThroughputSource.requireThroughput(own, config(null), ZoneOffset.UTC))
        .isInstanceOf(ReplayRefusedException.class);
    assertThatCode(() -> LogTailThroughputSource.requireThroughput(own,
        config(Pattern.compile("tokens/s=(?<value>\\d+(\\.\\d+)?)")), ZoneOffset.UTC)).doesNotThrowAnyException();
  }
}
