package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.topic.Topics;
import io.stunwatch.testsupport.Kcat;
import io.stunwatch.testsupport.RealPeers;
import io.stunwatch.testsupport.StunwatchProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code stunwatch broker} stopped the way an operator stops it (SIGTERM), then restarted on its data. */
class BrokerRestartIT {

  @TempDir
  Path dataDir;

  @Test
  void brokerCommandRestartedOnItsDataDirectoryStillServesEarlierRecords() {
    RealPeers.kcat();
    String payload = "{\"v\":1,\"vcenterUuid\":\"vc-1\",\"lastCreatedTime\":\"2026-11-21T12:00:00Z\","
        + "\"savedAt\":\"2026-11-21T12:00:01Z\"}";
    String clusterId;
    try (StunwatchProcess first = start()) {
      String bootstrap = first.awaitStdout("^" + BrokerCommand.READY_LINE + "(\\S+)$", Duration.ofSeconds(60))
          .group(1);
      clusterId = first.awaitStdout("cluster id: (\\S+)", Duration.ofSeconds(30)).group(1);
      Kcat.against(bootstrap).run(("vc-1\t" + payload + "\n").getBytes(StandardCharsets.UTF_8),
          Duration.ofSeconds(30), "-P", "-t", Topics.VCENTER_CHECKPOINTS.name(), "-K", "\t").assertOk();
      first.terminate(Duration.ofSeconds(60));
      first.awaitStderr("Kafka broker at .* stopped", Duration.ofSeconds(5));
    }

    try (StunwatchProcess second = start()) {
      String bootstrap = second.awaitStdout("^" + BrokerCommand.READY_LINE + "(\\S+)$", Duration.ofSeconds(60))
          .group(1);
      assertThat(second.awaitStdout("cluster id: (\\S+)", Duration.ofSeconds(30)).group(1)).isEqualTo(clusterId);
      String out = Kcat.against(bootstrap).run(null, Duration.ofSeconds(30), "-C", "-t",
          Topics.VCENTER_CHECKPOINTS.name(), "-o", "beginning", "-e", "-q", "-f", "%k\t%s\n").assertOk()
          .stdoutText();
      assertThat(out.lines()).containsExactly("vc-1\t" + payload);
    }
  }

  private StunwatchProcess start() {
    return StunwatchProcess.start("broker", "--data-dir", dataDir.toString(), "--port", "0", "--controller-port",
        "0");
  }
}
