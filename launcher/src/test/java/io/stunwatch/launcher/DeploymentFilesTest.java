package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigSource;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docker-compose.yml, the Dockerfile and the worker's systemd unit, checked without Docker (there is no engine here):
 * the YAML parses, every mounted file exists, every image is pinned, every command is a stunwatch command, and every
 * environment variable given to Stunwatch is one it reads.
 */
class DeploymentFilesTest {

  static final Path ROOT = GrafanaFiles.root();

  @SuppressWarnings("unchecked")
  static Map<String, Map<String, Object>> services() {
    return (Map<String, Map<String, Object>>) GrafanaFiles.yaml("docker-compose.yml").get("services");
  }

  /** Every variable Stunwatch reads: each key's, its {@code _FILE} form, and the config file's. */
  static Set<String> knownVariables() {
    Set<String> known = new HashSet<>();
    for (ConfigKey<?> k : ConfigCatalog.ALL) {
      known.add(k.envName());
      known.add(k.envName() + ConfigSource.FILE_SUFFIX);
    }
    known.add("STUNWATCH_CONFIG");
    return known;
  }

  static boolean runsStunwatch(Map<String, Object> service) {
    return String.valueOf(service.get("image")).startsWith("stunwatch:");
  }

  @Test
  void theSiteHasEveryServiceTheDeploymentNeeds() {
    assertThat(services().keySet()).contains("kafka", "stunwatch-processor", "stunwatch-api",
        "stunwatch-vcenter-collector", "prometheus", "grafana", "vcsim");
    assertThat(services().get("vcsim").get("profiles")).isEqualTo(List.of("vcsim"));
    assertThat(String.valueOf(services().get("kafka").get("image"))).startsWith("apache/kafka:4.1");
    assertThat(String.valueOf(((Map<?, ?>) services().get("grafana").get("environment")).get("GF_INSTALL_PLUGINS")))
        .contains("yesoreyeram-infinity-datasource");
  }

  @Test
  void everyImageIsPinnedToAVersion() {
    Pattern pinned = Pattern.compile("[^:@]+(:(?!latest$)[^:]*\\d[^:]*|@sha256:[0-9a-f]{64})");
    services().forEach((name, s) -> assertThat(String.valueOf(s.get("image"))).as(name + " image")
        .matches(pinned));
    for (String line : lines("Dockerfile")) {
      if (line.startsWith("FROM ")) {
        assertThat(line.split("\\s+")[1]).as(line).matches(pinned);
      }
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void everyMountedFileExistsAndEverySecretIsKeptOutOfGit() throws Exception {
    services().forEach((name, s) -> {
      for (Object v : (List<Object>) s.getOrDefault("volumes", List.of())) {
        String source = String.valueOf(v).split(":")[0];
        if (source.startsWith(".")) {
          assertThat(ROOT.resolve(source)).as(name + " mounts " + v).exists();
        }
      }
    });
    assertThat(ROOT.resolve("Dockerfile")).exists();
    String secretsDoc = Files.readString(ROOT.resolve("deploy/secrets/README.md"));
    String gitignore = Files.readString(ROOT.resolve(".gitignore"));
    Map<String, Map<String, Object>> secrets = (Map<String, Map<String, Object>>) GrafanaFiles.yaml(
        "docker-compose.yml").get("secrets");
    assertThat(secrets).isNotEmpty();
    secrets.forEach((name, s) -> {
      Path file = Path.of(String.valueOf(s.get("file")));
      assertThat(file.getParent().toString()).isEqualTo("./deploy/secrets");
      assertThat(secretsDoc).as("deploy/secrets/README.md explains " + name).contains("`" + file.getFileName() + "`");
    });
    assertThat(gitignore).contains("deploy/secrets/*");
  }

  @Test
  @SuppressWarnings("unchecked")
  void everyStunwatchServiceRunsARealCommandWithVariablesStunwatchReads() {
    Set<String> known = knownVariables();
    int checked = 0;
    for (var e : services().entrySet()) {
      Map<String, Object> s = e.getValue();
      if (!runsStunwatch(s)) {
        continue;
      }
      List<String> command = new ArrayList<>((List<String>) s.get("command"));
      command.add("--help");
      StringWriter out = new StringWriter();
      int rc = Stunwatch.execute(new LaunchContext(Map.of(), new PrintWriter(out, true), new PrintWriter(
          new StringWriter(), true), Clock.systemUTC()), command.toArray(String[]::new));
      assertThat(rc).as(e.getKey() + " runs " + s.get("command")).isZero();
      for (String variable : ((Map<String, Object>) s.getOrDefault("environment", Map.of())).keySet()) {
        assertThat(known).as(e.getKey() + " sets " + variable).contains(variable);
        checked++;
      }
    }
    assertThat(checked).isGreaterThan(10);
  }

  @Test
  @SuppressWarnings("unchecked")
  void grafanasVariablesAreTheOnesItsProvisioningReadsAndTheTokenComesFromTheSecret() throws Exception {
    Map<String, Object> env = (Map<String, Object>) services().get("grafana").get("environment");
    String datasources = Files.readString(ROOT.resolve("grafana/provisioning/datasources/stunwatch.yml"));
    Matcher m = Pattern.compile("\\$\\{(STUNWATCH_[A-Z_]+)").matcher(datasources);
    Set<String> read = new HashSet<>();
    while (m.find()) {
      read.add(m.group(1));
    }
    assertThat(env.keySet().stream().filter(k -> k.startsWith("STUNWATCH_")).toList())
        .containsExactlyInAnyOrderElementsOf(read);
    assertThat(String.valueOf(env.get("STUNWATCH_API_TOKEN"))).contains("/run/secrets/api-token");
    assertThat(datasources).doesNotContainPattern("bearerToken: [A-Za-z0-9]");
  }

  @Test
  void theWorkerUnitRunsTheWorkerUnprivilegedWithSettingsStunwatchReads() {
    List<String> unit = lines("deploy/systemd/stunwatch-worker.service");
    assertThat(unit).contains("User=stunwatch", "NoNewPrivileges=true");
    assertThat(unit).anyMatch(l -> l.startsWith("ExecStart=") && l.endsWith("stunwatch.jar collect worker"));
    Set<String> known = knownVariables();
    Matcher m = Pattern.compile("^Environment=([A-Z_]+)=").matcher("");
    for (String l : unit) {
      if (m.reset(l).find()) {
        assertThat(known).as(l).contains(m.group(1));
      }
    }
    for (String l : lines("deploy/systemd/worker.conf.example")) {
      if (!l.isBlank() && !l.startsWith("#")) {
        String key = l.substring(0, l.indexOf('='));
        assertThat(ConfigCatalog.ALL).as(l).anyMatch(k -> k.name().equals(key));
      }
    }
  }

  private static List<String> lines(String relative) {
    try {
      return Files.readAllLines(ROOT.resolve(relative));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
