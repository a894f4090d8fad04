package io.stunwatch.launcher;

import io.stunwatch.launcher.demo.Demo;
import io.stunwatch.launcher.sim.StunLaw;
import java.net.BindException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code stunwatch demo}: a whole site on this machine (embedded KRaft broker, processor, API) fed by a simulated
 * fleet through the collectors, with a live one-line summary read back from the API.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = {"Run a complete site on this machine: an embedded Kafka broker (KRaft), the processor and the API, "
        + "fed by a simulated fleet of GPU VMs (vGPU profiles T4-4C to A100-40C, Horovod-like training, RDMA) and a "
        + "vCenter that migrates them, by users and by DRS, some under load, some at once, some failing, with "
        + "vmware.log stun times at VMware's published ~2 s per GiB of framebuffer (or --stun-law).",
        "Everything the fleet makes goes through the collectors' parsers to Kafka; results come from the topology.",
        "The simulation starts --history ago and runs --speed times faster until it reaches the present, then "
            + "live. Ctrl-C stops it."})
final class DemoCommand implements Callable<Integer> {

  /** The line, on standard output, that says the API answers; followed by its URL. */
  static final String READY_LINE = "Stunwatch demo API at ";

  /** The line, before it, that gives the console's address. */
  static final String CONSOLE_LINE = "Open the console: ";

  private final LaunchContext ctx;

  @Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--speed", description = "Simulated seconds per real second until the present (default ${DEFAULT-VALUE}).")
  double speed = 60;

  @Option(names = "--history", paramLabel = "DURATION", defaultValue = "2h",
      description = "How far back the simulation starts, e.g. 30m, 2h, 1d (default ${DEFAULT-VALUE}).")
  Duration history;

  @Option(names = "--vms", description = "GPU VMs; one host per four (default ${DEFAULT-VALUE}).")
  int vms = 32;

  @Option(names = "--seed", description = "Random seed of the fleet: the same seed, the same fleet (default ${DEFAULT-VALUE}).")
  long seed = 1;

  @Option(names = "--data-dir", paramLabel = "DIR",
      description = "The demo's directory, emptied at start if a demo made it (default ${DEFAULT-VALUE}).")
  Path dataDir = Path.of("stunwatch-data", "demo");

  @Option(names = "--port", description = "API port, 0 for any free one (default ${DEFAULT-VALUE}).")
  int port = 8080;

  @Option(names = "--migration-every", paramLabel = "DURATION", defaultValue = "45s",
      description = "On average one migration starts this often, in simulated time (default ${DEFAULT-VALUE}).")
  Duration migrationEvery;

  @Option(names = "--stun-law", paramLabel = "A+B/GiB", defaultValue = "0+2/GiB",
      description = "How long the fleet's migrations stun their VMs: A seconds plus B seconds per GiB of framebuffer "
          + "used, ±15 %% (default ${DEFAULT-VALUE}, VMware's published vSphere 7 figure; try 4+0.8/GiB).")
  String stunLaw;

  @Option(names = "--duration", paramLabel = "DURATION",
      description = "Stop after this much real time, e.g. 10m (default: run until Ctrl-C).")
  Duration duration;

  @Option(names = "--summary-every", paramLabel = "DURATION", defaultValue = "2s",
      description = "How often the summary line is refreshed (default ${DEFAULT-VALUE}).")
  Duration summaryEvery;

  DemoCommand(LaunchContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() throws Exception {
    Demo.Options options;
    try {
      options = new Demo.Options(speed, history, vms, seed, dataDir, port, migrationEvery, StunLaw.parse(stunLaw));
      if (duration != null && (duration.isNegative() || duration.isZero())) {
        throw new IllegalArgumentException("--duration must be positive, not " + duration);
      }
      if (summaryEvery.toMillis() < 100) {
        throw new IllegalArgumentException("--summary-every must be at least 100 ms, not " + summaryEvery);
      }
      Demo.checkDataDir(dataDir);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    var out = ctx.out();
    out.println("Starting the Stunwatch demo in " + dataDir.toAbsolutePath() + " ...");
    out.flush();
    Demo demo;
    try {
      demo = Demo.start(options, ctx.clock());
    } catch (Exception e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof BindException) {
          ctx.err().println("stunwatch demo: the API's port " + port + " is in use: choose another with --port "
              + "(0 for any free one)");
          return ExitCodes.FAILED;
        }
      }
      throw e;
    }
    String url = demo.site().apiUrl();
    Path token = demo.tokenFile();
    out.println(CONSOLE_LINE + url + "/ (sign in with the token in " + token + ")");
    out.println(READY_LINE + url);
    out.printf("  fleet     %d GPU VMs on %d hosts; simulated from %s at x%s until the present, then live%n",
        options.vms(), options.hosts(), demo.simulationStart(), Math.round(speed));
    out.println("  Kafka     " + demo.site().bootstrapServers() + " (embedded KRaft broker)");
    out.println("  token     " + token + " (bearer token of the API)");
    out.println("  files     " + dataDir.resolve("fleet") + " (what the fleet's nvidia-smi, sysfs, training logs, "
        + "vCenter and vmware.log produced)");
    out.println();
    out.println("Or try the API:");
    out.println("  TOKEN=$(cat " + token + ")");
    out.println("  curl -s -H \"Authorization: Bearer $TOKEN\" '" + url + "/api/migrations?limit=5'");
    out.println("  curl -s -H \"Authorization: Bearer $TOKEN\" '" + url + "/api/alerts?state=resolved'");
    out.println("  curl -s -H \"Authorization: Bearer $TOKEN\" '" + url + "/api/stun-time/stats?groupBy=profile'");
    out.println("  curl -s -H \"Authorization: Bearer $TOKEN\" '" + url + "/api/stun-time/forecast?vm="
        + demo.scenario().vms().get(0).id() + "'");
    out.println("  curl -s -H \"Authorization: Bearer $TOKEN\" '" + url + "/api/grafana/annotations'");
    out.println("  curl -s '" + url + "/metrics' | grep '^stunwatch_vm_'");
    URI api = URI.create(url);
    out.println("With your own Prometheus and Grafana:");
    out.println("  prometheus.yml   scrape_configs: [{job_name: stunwatch, static_configs: [{targets: ['"
        + api.getHost() + ":" + api.getPort() + "']}]}]   rule_files: [prometheus/rules.yml]");
    out.println("  grafana          provisioning from grafana/provisioning and grafana/dashboards, with");
    out.println("                   STUNWATCH_API_URL=" + url + " STUNWATCH_PROMETHEUS_URL=http://localhost:9090");
    out.println("                   STUNWATCH_ALERT_WEBHOOK_URL=<where alerts go>, the token in "
        + "/run/secrets/api-token (a copy of " + token + ")");
    out.println("Ctrl-C stops it.");
    out.println();
    out.flush();

    // A terminal gets one line rewritten in place; a pipe or a file gets a line every 10 refreshes.
    boolean terminal = System.console() != null;
    ScheduledExecutorService summary = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "stunwatch-demo-summary");
      t.setDaemon(true);
      return t;
    });
    long[] ticks = {0};
    summary.scheduleWithFixedDelay(() -> {
      try {
        String line = demo.summary().line();
        if (terminal) {
          out.print("\r" + line + "   ");
          out.flush();
        } else if (ticks[0]++ % 10 == 0) {
          out.println(line);
          out.flush();
        }
      } catch (Exception e) {
        // the API restarting or still starting: the next refresh tries again
        if (!terminal && ticks[0]++ % 10 == 0) {
          out.println("(API not answering yet: " + e.getMessage() + ")");
          out.flush();
        }
      }
    }, summaryEvery.toMillis(), summaryEvery.toMillis(), TimeUnit.MILLISECONDS);

    AutoCloseable stop = () -> {
      summary.shutdownNow();
      try {
        out.println();
        out.println("Final: " + demo.summary().line());
      } catch (Exception e) {
        out.println("(no final summary: " + e.getMessage() + ")");
      }
      out.println("Stopping the demo ...");
      out.flush();
      demo.close();
      out.println("Stopped. The demo's data stays in " + dataDir + " until the next demo.");
      out.flush();
    };
    UntilStopped.await(stop, Duration.ofSeconds(60), duration);
    return demo.fleetFailure() == null ? ExitCodes.OK : ExitCodes.FAILED;
  }
}
