package io.stunwatch.collectors.hosts;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stunwatch.collectors.worker.CollectorMetrics;
import io.stunwatch.collectors.worker.DeliveryConfig;
import io.stunwatch.collectors.worker.Inputs;
import io.stunwatch.collectors.worker.RecordingSink;
import io.stunwatch.collectors.worker.WorkerIdentity;
import io.stunwatch.config.ConfigSource;
import io.stunwatch.metrics.HostFailure;
import io.stunwatch.metrics.HostState;
import io.stunwatch.model.HostVgpuSample;
import io.stunwatch.model.VmotionBandwidth;
import io.stunwatch.testsupport.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** One host's session driven by hand: a fake shell, a clock the test moves. */
class HostSessionTest {

  private static final HostAddress ESX = new HostAddress("esx01", "10.0.0.1", 22);

  private final ManualClock clock = new ManualClock(Instant.parse("2026-11-28T10:00:00Z"));
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final RecordingSink sink = new RecordingSink();
  private final Inputs inputs = new Inputs(new WorkerIdentity(null, "collect-hosts"), sink,
      new CollectorMetrics(registry, clock), clock);
  private final HostMetrics metrics = new HostMetrics(registry, s -> 0L);
  private final FakeShell shell = new FakeShell();
  private final HostsConfig config = HostsConfig.from(ConfigSource.load(Optional.empty(), Map.of(
      "STUNWATCH_HOSTS_SOURCE", "file", "STUNWATCH_HOSTS_FILE", "/dev/null",
      "STUNWATCH_HOSTS_SSH_IDENTITY_FILE", "/dev/null", "STUNWATCH_HOSTS_SSH_KNOWN_HOSTS", "/dev/null",
      "STUNWATCH_HOSTS_INTERVAL", "1s", "STUNWATCH_HOSTS_SILENT_AFTER", "5s", "STUNWATCH_HOSTS_CONNECT_TIMEOUT",
      "3s"), Stream.of(HostsConfig.KEYS, DeliveryConfig.KEYS).flatMap(List::stream).toList()));
  private final HostSession session = new HostSession(ESX, shell, config, inputs, metrics, Runnable::run);

  {
    metrics.follow("esx01", session, HostSession::readingAgeSeconds);
  }

  private void advance(long millis) {
    clock.advance(Duration.ofMillis(millis));
    session.tick();
  }

  private static List<String> block(String timestamp, String vm, int util) {
    return List.of("", "==============NVSMI LOG==============", "", "Timestamp : " + timestamp,
        "Driver Version : 550.90.05", "", "GPU 00000000:3B:00.0", "    Active vGPUs : 1",
        "    vGPU ID : 3251634213", "        VM ID : 2103582", "        VM Name : " + vm,
        "        vGPU Name : GRID T4-16C", "        Utilization", "            Gpu : " + util + " %");
  }

  @Test
  void aStreamIsCutIntoReadingsAtEachBannerOrWhenItPausesAndEachIsStampedWithItsTimestamp() {
    session.tick();
    assertThat(session.state()).isEqualTo(HostState.CONNECTING);
    shell.accept();
    assertThat(session.state()).isEqualTo(HostState.STREAMING);
    assertThat(shell.commands).containsExactly("nvidia-smi vgpu -q -l 1");
    block("Sat Nov 28 09:59:58 2026", "train-01", 90).forEach(shell.out);
    assertThat(sink.values(HostVgpuSample.class)).as("the block may go on").isEmpty();
    advance(HostSession.QUIET_MS);
    assertThat(sink.values(HostVgpuSample.class)).singleElement().satisfies(s -> {
      assertThat(s.hostname()).isEqualTo("esx01");
      assertThat(s.timestamp()).isEqualTo(Instant.parse("2026-11-28T09:59:58Z"));
      assertThat(s.key()).isEqualTo("name:esx01/train-01");
      assertThat(s.utilizationGpuPct()).isEqualTo(90.0);
    });
    assertThat(session.readingAgeSeconds()).isZero();
    block("Sat Nov 28 09:59:59 2026", "train-01", 80).forEach(shell.out);
    block("Sat Nov 28 10:00:00 2026", "train-01", 70).forEach(shell.out);
    assertThat(sink.values(HostVgpuSample.class)).extracting(HostVgpuSample::utilizationGpuPct)
        .as("the next banner ends a block at once").containsExactly(90.0, 80.0);
  }

  @Test
  void failuresAreCountedByReasonAndRetriedAfterABackoffThatAReadingResets() {
    session.tick();
    shell.refuse(new HostFailureException(HostFailure.CHANGED_HOST_KEY, "esx01: its key is not the one pinned"));
    assertThat(session.state()).isEqualTo(HostState.BACKOFF);
    assertThat(metrics.failureCount("esx01", HostFailure.CHANGED_HOST_KEY)).isEqualTo(1);
    advance(500);
    assertThat(shell.connects).as("not before the first second").isEqualTo(1);
    advance(800);
    assertThat(shell.connects).isEqualTo(2);
    shell.refuse(new RuntimeException(new HostFailureException(HostFailure.UNREACHABLE, "esx01: refused")));
    assertThat(metrics.failureCount("esx01", HostFailure.UNREACHABLE)).isEqualTo(1);
    advance(1300);
    assertThat(shell.connects).as("the second wait is two seconds").isEqualTo(2);
    advance(1200);
    assertThat(shell.connects).isEqualTo(3);
    shell.accept();
    block("Sat Nov 28 10:00:03 2026", "train-01", 90).forEach(shell.out);
    advance(HostSession.QUIET_MS);
    shell.end(new HostFailureException(HostFailure.COMMAND_ENDED, "esx01: ended with exit status 9"));
    assertThat(metrics.failureCount("esx01", HostFailure.COMMAND_ENDED)).isEqualTo(1);
    advance(1300);
    assertThat(shell.connects).as("a reading reset the backoff to one second").isEqualTo(4);
  }

  @Test
  void aSilentStreamAndAConnectionThatNeverCompletesAreDroppedAndALateConnectionIsClosed() {
    session.tick();
    shell.accept();
    block("Sat Nov 28 10:00:00 2026", "train-01", 90).subList(0, 8).forEach(shell.out);
    advance(5_100);
    assertThat(metrics.failureCount("esx01", HostFailure.SILENT)).isEqualTo(1);
    assertThat(shell.closed).isEqualTo(1);
    assertThat(sink.values(HostVgpuSample.class)).as("a block cut off is not published").isEmpty();
    advance(1_300);
    assertThat(shell.connects).isEqualTo(2);
    advance(3_100);
    assertThat(metrics.failureCount("esx01", HostFailure.TIMEOUT)).isEqualTo(1);
    shell.accept();
    assertThat(shell.closed).as("the abandoned attempt's connection").isEqualTo(2);
    assertThat(session.state()).isEqualTo(HostState.BACKOFF);
  }

  @Test
  void theSchedulerStateFillsThePolicyThatVgpuQueryLeavesOut() {
    shell.schedulerOutput = "GPU 00000000:3B:00.0\n    vGPU Scheduler State\n        Scheduler Policy : Equal Share\n";
    session.tick();
    shell.accept();
    advance(10);
    assertThat(shell.commands).contains("nvidia-smi vgpu -ss");
    block("Sat Nov 28 10:00:00 2026", "train-01", 90).forEach(shell.out);
    advance(HostSession.QUIET_MS);
    assertThat(sink.values(HostVgpuSample.class)).singleElement()
        .satisfies(s -> assertThat(s.schedulerPolicy()).isEqualTo("Equal Share"));
  }

  @Test
  void theVmkernelLogIsFollowedBesideTheReadingsAndItsEndNeverStopsThem() {
    session.tick();
    shell.accept();
    advance(10);
    assertThat(shell.commands).contains("tail -n 0 -F /var/log/vmkernel.log");
    shell.vmkernel.accept("2026-11-28T10:00:01.000Z cpu3:2099543)VMotion: 5426: 11 S: Pre-copy iteration 3");
    shell.vmkernel.accept("2026-11-28T10:00:02.000Z cpu3:2099543)VMotion: 4650: 11 S: Stopping pre-copy: only 1296 "
        + "pages left to send, which can be sent within the switchover time goal of 0.500 seconds (network bandwidth "
        + "~145.404 MB/s, 101088% t2d)");
    assertThat(sink.values(VmotionBandwidth.class)).singleElement().satisfies(b -> {
      assertThat(b.vmotionId()).isEqualTo("11");
      assertThat(b.hostname()).isEqualTo("esx01");
      assertThat(b.bandwidthMBps()).isEqualTo(145.404);
      assertThat(b.lineNumber()).as("counted from where the follow began").isEqualTo(2);
    });
    shell.vmkernelEnded.completeExceptionally(new HostFailureException(HostFailure.COMMAND_ENDED, "tail: not found"));
    block("Sat Nov 28 10:00:03 2026", "train-01", 90).forEach(shell.out);
    advance(HostSession.QUIET_MS);
    assertThat(session.state()).as("the readings go on").isEqualTo(HostState.STREAMING);
    assertThat(sink.values(HostVgpuSample.class)).hasSize(1);
    long tails = shell.commands.stream().filter(c -> c.startsWith("tail")).count();
    for (int s = 1; s < HostSession.VMKERNEL_RETRY.toSeconds() - 1; s++) {
      shell.out.accept("");                                     // the readings' stream goes on printing
      advance(1_000);
    }
    assertThat(session.state()).isEqualTo(HostState.STREAMING);
    assertThat(shell.commands.stream().filter(c -> c.startsWith("tail")).count()).isEqualTo(tails);
    shell.out.accept("");
    advance(1_000);
    shell.out.accept("");
    advance(1_000);
    assertThat(shell.commands.stream().filter(c -> c.startsWith("tail")).count()).as("started again")
        .isEqualTo(tails + 1);
  }

  /** A shell whose every step the test completes by hand. */
  private final class FakeShell implements HostShell {
    int connects;
    int closed;
    final List<String> commands = new ArrayList<>();
    String schedulerOutput = "";
    CompletableFuture<Connection> pending;
    Consumer<String> out;
    CompletableFuture<Void> ended;
    Consumer<String> vmkernel;
    CompletableFuture<Void> vmkernelEnded;

    @Override
    public CompletableFuture<Connection> connect(HostAddress host) {
      assertThat(host).isEqualTo(ESX);
      connects++;
      pending = new CompletableFuture<>();
      return pending;
    }

    void accept() {
      pending.complete(new Connection() {
        @Override
        public CompletableFuture<Void> stream(String command, Consumer<String> lines, CompletableFuture<Void> end) {
          commands.add(command);
          if (command.equals(config.vmkernelCommand())) {
            vmkernel = lines;
            vmkernelEnded = end;
          } else {
            out = lines;
            ended = end;
          }
          return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<String> capture(String command, int maxBytes) {
          commands.add(command);
          return CompletableFuture.completedFuture(schedulerOutput);
        }

        @Override
        public void close() {
          closed++;
        }
      });
    }

    void refuse(Throwable why) {
      pending.completeExceptionally(why);
    }

    void end(Throwable why) {
      ended.completeExceptionally(why);
    }

    @Override
    public void close() {
    }
  }

}
