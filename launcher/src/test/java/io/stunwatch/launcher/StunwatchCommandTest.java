package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

class StunwatchCommandTest {

  @TempDir
  Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(Map<String, String> env, String... args) {
    return Stunwatch.execute(new LaunchContext(env, new PrintWriter(out, true), new PrintWriter(err, true),
        Clock.systemUTC()), args);
  }

  @Test
  void everyCommandAndSubcommandAnswersHelp() {
    List<List<String>> paths = new ArrayList<>();
    walk(Stunwatch.commandLine(new LaunchContext(Map.of(), new PrintWriter(out), new PrintWriter(err),
        Clock.systemUTC())), new ArrayList<>(), paths);
    assertThat(paths).extracting(p -> String.join(" ", p))
        .contains("broker", "demo", "collect worker", "collect vcenter", "process", "api", "tail", "version",
            "config keys", "config check");
    for (List<String> path : paths) {
      StringWriter o = new StringWriter();
      List<String> args = new ArrayList<>(path);
      args.add("--help");
      int rc = Stunwatch.execute(new LaunchContext(Map.of(), new PrintWriter(o, true), new PrintWriter(err, true),
          Clock.systemUTC()), args.toArray(String[]::new));
      assertThat(rc).as(String.join(" ", path)).isZero();
      assertThat(o.toString()).as(String.join(" ", path)).startsWith("Usage: stunwatch " + String.join(" ", path));
    }
  }

  private static void walk(CommandLine cl, List<String> prefix, List<List<String>> out) {
    for (var e : cl.getSubcommands().entrySet()) {
      if (e.getKey().equals("help")) {
        continue;
      }
      List<String> path = new ArrayList<>(prefix);
      path.add(e.getKey());
      out.add(path);
      walk(e.getValue(), path, out);
    }
  }

  @ParameterizedTest(name = "stunwatch demo {0}")
  @CsvSource(delimiter = '|', value = {
      "--speed 0|--speed must be between 1 and 10000",
      "--history 90d|--history must be between 0 and 30 days",
      "--vms 0|--vms must be between 1 and 1000",
      "--port 70000|--port must be between 0 and 65535",
      "--duration 0s|--duration must be positive",
      "--history soon|Invalid value for option '--history'"})
  void theDemoRefusesABadOptionNamingItBeforeStartingAnything(String args, String message) {
    assertThat(run(Map.of(), ("demo " + args).split(" "))).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString()).contains(message).doesNotContain("\tat ");
  }

  @Test
  void enumOptionsTakeAnyCaseAndKindsTakeHyphens() {
    for (String kind : List.of("vgpu-query", "VGPU_QUERY", "Vgpu_Query")) {
      picocli.CommandLine cl = Stunwatch.commandLine(new LaunchContext(Map.of(), new PrintWriter(out),
          new PrintWriter(err), Clock.systemUTC()));
      picocli.CommandLine.ParseResult r = cl.parseArgs("collect", "worker", "--replay-as", kind, "--replay", "x.txt");
      Object parsed = r.subcommand().subcommand().matchedOptionValue("--replay-as", null);
      assertThat(parsed).isEqualTo(io.stunwatch.collectors.worker.ReplayKind.VGPU_QUERY);
    }
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "collect worker --vm-id 4c4c4544-0042-3510-8052-b4c04f4e3232 --replay /no/such.csv|--replay /no/such.csv: no such file",
      "collect vcenter --replay-inventory /no/such.json|--replay-inventory /no/such.json: no such file",
      "replay /no/such-bundle.tar.gz|/no/such-bundle.tar.gz: no such file"})
  void aReplayOfAFileThatIsNotThereIsAUsageErrorNamingIt(String args, String message) {
    assertThat(run(Map.of(), args.split(" "))).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString()).contains(message).doesNotContain("\tat ");
  }

  @Test
  void theDemoWillNotEmptyADirectoryItDidNotMake(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("thesis.tex"), "precious");
    assertThat(run(Map.of(), "demo", "--data-dir", dir.toString())).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString()).contains("--data-dir " + dir).contains("not made by the demo");
    assertThat(dir.resolve("thesis.tex")).hasContent("precious");
  }

  @Test
  void theApiRefusesToStartWithoutATokenOrWithAShortOne() {
    assertThat(run(Map.of(), "api", "--bootstrap-servers", "localhost:1")).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString()).contains("api.token").contains("required").doesNotContain("\tat ");
    err.getBuffer().setLength(0);
    assertThat(run(Map.of("STUNWATCH_API_TOKEN", "short"), "api", "--bootstrap-servers", "localhost:1"))
        .isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString()).contains("at least 16 characters").doesNotContain("short'");
  }

  @Test
  void badConfigurationStopsTheBrokerBeforeStartingAndListsEveryProblem() {
    int rc = run(Map.of("STUNWATCH_BROKER_PORT", "ninety"), "broker", "--partitions", "0",
        "--data-dir", dir.toString());
    assertThat(rc).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString())
        .contains("broker.port = 'ninety' (from env STUNWATCH_BROKER_PORT): must be an integer in 0..65535")
        .contains("broker.partitions = '0' (from --partitions): must be an integer in 1..1000")
        .doesNotContain("\tat ");
    assertThat(Files.exists(dir.resolve("kafka-logs"))).as("nothing was started").isFalse();
  }

  @Test
  void unknownKeyInTheConfigFileNamesFileAndLine() throws Exception {
    Path file = dir.resolve("stunwatch.properties");
    Files.writeString(file, "# site config\nbroker.partitions=6\nbroker.prot=19092\n");
    int rc = run(Map.of(), "config", "check", "--config", file.toString());
    assertThat(rc).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString()).contains("broker.prot (from " + file + ":3): unknown key; did you mean 'broker.port'?");
  }

  @Test
  void configCheckShowsEveryEffectiveValueWithItsOrigin() throws Exception {
    Path file = dir.resolve("stunwatch.properties");
    Files.writeString(file, "broker.partitions=6\n");
    int rc = run(Map.of("STUNWATCH_CONFIG", file.toString(), "STUNWATCH_LOG_LEVEL", "debug"), "config", "check");
    assertThat(rc).isZero();
    assertThat(out.toString())
        .contains("broker.partitions = 6 (" + file + ":1)")
        .contains("log.level = DEBUG (env STUNWATCH_LOG_LEVEL)")
        .contains("kafka.bootstrap-servers = localhost:9092 (default)")
        .contains("configuration is valid");
  }

  @Test
  void vcenterCollectionWithoutUrlOrCredentialsSaysWhatIsMissingAndStartsNothing() {
    int rc = run(Map.of(), "collect", "vcenter");
    assertThat(rc).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString()).contains("vcenter.urls: is required").contains("vcenter.username: is required")
        .contains("vcenter.password: is required; set STUNWATCH_VCENTER_PASSWORD_FILE");
  }

  @Test
  void credentialsInAVcenterUrlAreRefused() {
    int rc = run(Map.of("STUNWATCH_VCENTER_URLS", "https://admin:secret@vc01.example.com/sdk"), "collect", "vcenter");
    assertThat(rc).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString()).contains("must not carry credentials").doesNotContain("secret");
  }

  @Test
  void tailRejectsATopicThatIsNotInTheCatalog() {
    int rc = run(Map.of(), "tail", "gpu-samples");
    assertThat(rc).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString()).contains("unknown topic 'gpu-samples'").contains("stunwatch.gpu-samples");
  }

  @Test
  void noCommandIsAUsageError() {
    assertThat(run(Map.of())).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString()).contains("missing command");
  }

  @Test
  void versionNamesStunwatchJavaAndKafka() {
    assertThat(run(Map.of(), "version")).isZero();
    assertThat(out.toString()).contains("stunwatch ").contains("Java 17").contains("Kafka 4.4");
  }
}
