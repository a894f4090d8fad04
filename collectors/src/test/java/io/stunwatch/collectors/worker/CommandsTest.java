package io.stunwatch.collectors.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Child commands that hang or flood, run by a real shell: the deadline holds, and nothing is left running. */
class CommandsTest {

  @Test
  @Timeout(value = 20, unit = TimeUnit.SECONDS)
  void aSilentChildIsKilledAtTheDeadline() {
    long start = System.nanoTime();
    assertThatThrownBy(() -> Commands.run(List.of("sh", "-c", "sleep 600"), Duration.ofMillis(500)))
        .isInstanceOf(IOException.class).hasMessageContaining("did not finish within");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  @Timeout(value = 20, unit = TimeUnit.SECONDS)
  void aChildThatFloodsItsStderrStillFinishesAndItsOutputIsKept() throws Exception {
    // 1 MiB of stderr: far more than the pipe holds; a reader that stops early would block the child for ever
    byte[] out = Commands.run(List.of("sh", "-c", "head -c 1048576 /dev/zero >&2; echo done"), Duration.ofSeconds(10));
    assertThat(new String(out, StandardCharsets.UTF_8).strip()).isEqualTo("done");
  }

  @Test
  @Timeout(value = 20, unit = TimeUnit.SECONDS)
  void aChildHungAtTheDeadlineIsKilledWithWhatItStarted() throws Exception {
    String marker = "stunwatch-commands-test-" + System.nanoTime();
    assertThatThrownBy(() -> Commands.run(List.of("bash", "-c", "(exec -a " + marker + " sleep 600) & echo started; wait"),
        Duration.ofMillis(800))).hasMessageContaining("did not finish within");
    assertThat(ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("").contains(marker))
        .filter(ProcessHandle::isAlive).count()).as("the grandchild is gone too").isZero();
  }

  @Test
  @Timeout(value = 20, unit = TimeUnit.SECONDS)
  void aFailureNamesTheCommandAndTheStartOfItsStderr() {
    assertThatThrownBy(() -> Commands.run(List.of("sh", "-c", "echo 'NVIDIA-SMI has failed' >&2; exit 9"),
        Duration.ofSeconds(10))).hasMessageContaining("exited 9").hasMessageContaining("NVIDIA-SMI has failed");
  }
}
