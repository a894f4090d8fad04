package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigSource;
import io.stunwatch.processor.ProcessorConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

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
    assertThat(services().keySet()).contains("kafka", "stunwatch-api",
        "stunwatch-vcenter-collector", "prometheus", "grafana", "alertmanager");
    assertThat(services().get("alertmanager").get("profiles")).isEqualTo(List.of("alertmanager"));
    // the site's broker is the release whose clients and embedded broker this build runs
    assertThat(String.valueOf(services().get("kafka").get("image"))).isEqualTo("apache/kafka:" + BuildInfo.kafkaVersion());
    assertThat(String.valueOf(((Map<?, ?>) services().get("grafana").get("environment")).get("GF_INSTALL_PLUGINS")))
        .contains("yesoreyeram-infinity-datasource");
  }

  @Test
  @SuppressWarnings("unchecked")
  void noInstanceThatServesNoQueriesSharesAnApplicationWithTheApi() {
    // `stunwatch process` sets no application.server: partitions it owns could not be listed, looked up or scraped
    Map<String, Set<String>> commandsByApplication = new HashMap<>();
    services().forEach((name, s) -> {
      if (!runsStunwatch(s) || !(s.get("command") instanceof List<?> command) || command.isEmpty()) {
        return;
      }
      String first = String.valueOf(command.get(0));
      if (first.equals("process") || first.equals("api")) {
        Map<String, Object> env = (Map<String, Object>) s.getOrDefault("environment", Map.of());
        String app = String.valueOf(env.getOrDefault("STUNWATCH_PROCESS_APPLICATION_ID",
            ProcessorConfig.APPLICATION_ID.defaultValue()));
        commandsByApplication.computeIfAbsent(app, k -> new TreeSet<>()).add(first);
      }
    });
    assertThat(commandsByApplication).isNotEmpty()
        .allSatisfy((app, commands) -> assertThat(commands).as("commands under " + app).doesNotContain("process"));
  }

  @Test
  @SuppressWarnings("unchecked")
  void theSiteIsClosedByDefaultAndEveryLongRunningServiceIsWatchedAndBounded() throws Exception {
    Map<String, Map<String, Object>> services = services();
    services.forEach((name, s) -> {
      for (Object port : (List<Object>) s.getOrDefault("ports", List.of())) {
        String p = String.valueOf(port);
        if (!(name.equals("grafana") && p.equals("3000:3000")) && !(name.equals("kafka") && p.equals("9094:9094"))) {
          assertThat(p).as(name + " publishes " + p + " on loopback only").startsWith("127.0.0.1:");
        }
      }
      if (!"no".equals(String.valueOf(s.get("restart")))) {
        assertThat(s).as(name + " has a healthcheck").containsKey("healthcheck");
      }
      assertThat(s).as(name + " has a memory limit").containsKey("mem_limit");
    });
    // Kafka: the published port is the authenticated listener; the site's services use the internal one
    Map<String, Object> kafka = (Map<String, Object>) services.get("kafka").get("environment");
    Map<String, String> protocols = new HashMap<>();
    for (String pair : String.valueOf(kafka.get("KAFKA_LISTENER_SECURITY_PROTOCOL_MAP")).split(",")) {
      protocols.put(pair.split(":")[0], pair.split(":")[1]);
    }
    Map<String, String> listenerPorts = new HashMap<>();
    for (String l : String.valueOf(kafka.get("KAFKA_LISTENERS")).split(",")) {
      listenerPorts.put(l.substring(l.lastIndexOf(':') + 1), l.substring(0, l.indexOf(':')));
    }
    for (Object port : (List<Object>) services.get("kafka").get("ports")) {
      String container = String.valueOf(port).substring(String.valueOf(port).lastIndexOf(':') + 1);
      assertThat(protocols.get(listenerPorts.get(container))).as("published Kafka port " + port)
          .isEqualTo("SASL_SSL");
    }
    assertThat(kafka).containsEntry("KAFKA_ALLOW_EVERYONE_IF_NO_ACL_FOUND", "false")
        .containsKey("KAFKA_AUTHORIZER_CLASS_NAME");
    assertThat(String.valueOf(kafka.get("KAFKA_SSL_KEYSTORE_PASSWORD"))).as("read from its secret file")
        .startsWith("$${dir:/run/secrets:");
    services.forEach((name, s) -> {
      Object bootstrap = ((Map<String, Object>) s.getOrDefault("environment", Map.of()))
          .get("STUNWATCH_KAFKA_BOOTSTRAP_SERVERS");
      if (bootstrap != null) {
        String port = String.valueOf(bootstrap).substring(String.valueOf(bootstrap).lastIndexOf(':') + 1);
        assertThat(protocols.get(listenerPorts.get(port))).as(name + " uses the internal listener")
            .isEqualTo("PLAINTEXT");
      }
    });
    assertThat(services.get("stunwatch-kafka-access").get("command")).isEqualTo(List.of("config", "access",
        "--users-file", "/run/secrets/kafka-users"));
    List<String> ignored = lines(".dockerignore");
    assertThat(ignored).as(".dockerignore keeps secrets out of the build context").contains("deploy/secrets",
        ".env");
  }

  @Test
  void everyImageIsPinnedToAVersion() {
    Pattern pinned = Pattern.compile("[^:@]+(:(?!latest$)[^:]*\\d[^:]*|@sha256:[0-9a-f]{64})");
    services().forEach((name, s) -> assertThat(String.valueOf(s.get("image"))).as(name + " image")
        .matches(pinned));
    vcsimServices().forEach((name, s) -> {
      if (s.containsKey("image")) {
        assertThat(String.valueOf(s.get("image"))).as(name + " image").matches(pinned);
      }
    });
    for (String dockerfile : List.of("Dockerfile", "deploy/vcsim/Dockerfile")) {
      for (String line : lines(dockerfile)) {
        if (line.startsWith("FROM ")) {
          assertThat(line.split("\\s+")[1]).as(dockerfile + ": " + line).matches(pinned);
        }
      }
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, Map<String, Object>> vcsimServices() {
    return (Map<String, Map<String, Object>>) GrafanaFiles.yaml("deploy/vcsim/docker-compose.vcsim.yml")
        .get("services");
  }

  @Test
  @SuppressWarnings("unchecked")
  void theSimulatedVcenterIsOurOwnVcsimBuildWhoseGeneratedCertificateTheCollectorTrusts() throws Exception {
    // The official vcsim image serves a certificate the collector cannot verify, and its ServiceContent is newer
    // than the tests' simulator: the site's simulator is built from the tests' main.go, and the collector trusts
    // exactly the certificate it generates, for the name it is reached by.
    Map<String, Map<String, Object>> override = vcsimServices();
    Map<String, Object> vcsim = override.get("vcsim");
    Map<String, Object> build = (Map<String, Object>) vcsim.get("build");
    assertThat(build.get("context")).as("built from the repository root").isEqualTo(".");
    List<String> dockerfile = lines(String.valueOf(build.get("dockerfile")));
    assertThat(dockerfile).contains("COPY test-support/vcsim/main.go /src/main.go",
        "COPY deploy/vcsim/entrypoint.sh /usr/local/bin/vcsim-entrypoint");
    assertThat(String.join("\n", lines("test-support/vcsim/build.sh")))
        .as("the image builds main.go as the tests do").contains("GOPATH=/usr/share/gocode GO111MODULE=off");
    assertThat(dockerfile).anyMatch(l -> l.contains("GOPATH=/usr/share/gocode GO111MODULE=off go build"));
    Map<String, Object> collector = override.get("stunwatch-vcenter-collector");
    Map<String, Object> env = (Map<String, Object>) collector.get("environment");
    URI url = URI.create(String.valueOf(env.get("STUNWATCH_VCENTER_URLS")));
    assertThat(url.getScheme()).isEqualTo("https");
    assertThat(override.keySet()).contains(url.getHost());
    assertThat(String.valueOf(((Map<String, Object>) vcsim.get("environment")).get("VCSIM_TLS_NAMES")))
        .as("the certificate names the host the collector connects to").isEqualTo(url.getHost());
    assertThat(url.getPort()).isEqualTo(8989);
    assertThat(Files.readString(ROOT.resolve("deploy/vcsim/entrypoint.sh"))).contains("0.0.0.0:8989}");
    // the CA file lies in the certificate volume, mounted where the collector looks, read-only
    String volume = ((List<Object>) vcsim.get("volumes")).stream().map(String::valueOf)
        .filter(v -> v.endsWith(":/tls")).findFirst().orElseThrow().split(":")[0];
    String mount = ((List<Object>) collector.get("volumes")).stream().map(String::valueOf)
        .filter(v -> v.startsWith(volume + ":")).findFirst().orElseThrow();
    assertThat(mount).endsWith(":ro");
    assertThat(String.valueOf(env.get("STUNWATCH_VCENTER_CA_FILE"))).isEqualTo(mount.split(":")[1] + "/vcsim.pem");
    assertThat(env).doesNotContainKey("STUNWATCH_VCENTER_INSECURE");
    // the vCenter user's password is the site's secret, read from a file by both sides
    assertThat((List<Object>) vcsim.get("command")).containsSequence("-password-file", "/run/secrets/vcenter-password");
    assertThat((List<Object>) vcsim.get("secrets")).contains("vcenter-password");
    assertThat(((Map<String, Object>) GrafanaFiles.yaml("docker-compose.yml").get("secrets")))
        .containsKey("vcenter-password");
  }

  @Test
  void prometheusScrapesTheWorkersListedByServiceDiscoveryOnTheirMetricsPort() throws Exception {
    String example = Files.readString(ROOT.resolve("deploy/prometheus/workers/gpu-workers.yml.example"));
    String port = lines("deploy/systemd/worker.conf.example").stream()
        .filter(l -> l.startsWith("worker.metrics-port=")).findFirst().orElseThrow().split("=")[1];
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> groups = (List<Map<String, Object>>) (Object) new Yaml()
        .load(example);
    assertThat(groups).isNotEmpty().allSatisfy(g -> assertThat((List<?>) g.get("targets")).isNotEmpty()
        .allSatisfy(t -> assertThat(String.valueOf(t)).endsWith(":" + port)));
    assertThat(services().get("prometheus").get("volumes").toString())
        .contains("./deploy/prometheus/workers:/etc/prometheus/workers:ro");
    assertThat(Files.readString(ROOT.resolve("deploy/prometheus/prometheus.yml")))
        .contains("- /etc/prometheus/workers/*.yml");
    assertThat(Files.readString(ROOT.resolve(".gitignore"))).as("a site's worker list is its own")
        .contains("deploy/prometheus/workers/*.yml");
  }

  /**
   * Followed from deployment.md, {@code docker compose up} starts: the recipe names every variable compose requires
   * ({@code ${VAR:?...}}) and makes every secret file of the services that start without a profile.
   */
  @Test
  @SuppressWarnings("unchecked")
  void deploymentMdNamesEverySettingAndSecretComposeRequires() throws Exception {
    String compose = Files.readString(ROOT.resolve("docker-compose.yml"));
    String doc = Files.readString(ROOT.resolve("docs/deployment.md"));
    String recipe = doc.substring(doc.indexOf("```sh"), doc.indexOf("```", doc.indexOf("```sh") + 5));
    List<String> missing = new ArrayList<>();
    Matcher required = Pattern.compile("\\$\\{([A-Z0-9_]+):\\?").matcher(compose);
    while (required.find()) {
      if (!recipe.contains(required.group(1) + "=")) {
        missing.add("variable " + required.group(1));
      }
    }
    Map<String, Map<String, Object>> secrets = (Map<String, Map<String, Object>>) GrafanaFiles.yaml(
        "docker-compose.yml").get("secrets");
    services().forEach((name, svc) -> {
      if (svc.containsKey("profiles")) {
        return;
      }
      for (Object ref : (List<Object>) svc.getOrDefault("secrets", List.of())) {
        String secret = ref instanceof Map<?, ?> m ? String.valueOf(m.get("source")) : String.valueOf(ref);
        String file = String.valueOf(secrets.get(secret).get("file")).replaceFirst("^\\./", "");
        if (!recipe.contains(file)) {
          missing.add("secret file " + file + " (service " + name + ")");
        }
      }
    });
    assertThat(missing).as("what docs/deployment.md's recipe leaves out").isEmpty();
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
  void grafanasProvisioningExpandsAsGrafanaDoesToUrlsHostsAndTheMountedSecret() throws Exception {
    Map<String, Object> grafana = services().get("grafana");
    Map<String, String> env = new HashMap<>();
    ((Map<String, Object>) grafana.getOrDefault("environment", Map.of())).forEach((k, v) ->
        env.put(k, composeValue(String.valueOf(v))));
    Set<String> mounted = new HashSet<>();
    for (Object secret : (List<Object>) grafana.getOrDefault("secrets", List.of())) {
      mounted.add("/run/secrets/" + secret);
    }
    List<String> read = new ArrayList<>();
    GrafanaInterpolation grafanaExpands = new GrafanaInterpolation(env, path -> {
      assertThat(mounted).as("$__file{" + path + "} reads a secret Grafana mounts").contains(path);
      read.add(path);
      return "secret:" + path;
    });
    Set<String> serviceNames = services().keySet();
    try (var files = Files.walk(ROOT.resolve("grafana/provisioning"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yml")).toList()) {
        String rel = ROOT.relativize(f).toString();
        expandAll(GrafanaFiles.yaml(rel), rel, grafanaExpands);
      }
    }
    Map<String, Object> ds = (Map<String, Object>) GrafanaFiles.yaml("grafana/provisioning/datasources/stunwatch.yml");
    for (Map<String, Object> d : (List<Map<String, Object>>) ds.get("datasources")) {
      String url = grafanaExpands.interpolate(String.valueOf(d.get("url")));
      URI u = URI.create(url);
      assertThat(u.getScheme()).as(d.get("name") + " url " + url).isIn("http", "https");
      assertThat(serviceNames).as(d.get("name") + " url " + url + " names a compose service").contains(u.getHost());
      Map<String, Object> json = (Map<String, Object>) d.getOrDefault("jsonData", Map.of());
      for (Object host : (List<Object>) json.getOrDefault("allowedHosts", List.of())) {
        String h = grafanaExpands.interpolate(String.valueOf(host));
        assertThat(h).as(d.get("name") + " allowed host").isNotBlank();
        assertThat(url).as("Infinity allows the url by its host prefix").startsWith(h);
      }
      Map<String, Object> secure = (Map<String, Object>) d.getOrDefault("secureJsonData", Map.of());
      for (Map.Entry<String, Object> e : secure.entrySet()) {
        assertThat(grafanaExpands.interpolate(String.valueOf(e.getValue()))).as(d.get("name") + " " + e.getKey())
            .startsWith("secret:/run/secrets/");
      }
    }
    assertThat(read).as("the API token is read from its secret").contains("/run/secrets/api-token");
  }

  /** Every string of a provisioning file that names something to expand must expand to something. */
  @SuppressWarnings("unchecked")
  private static void expandAll(Object node, String where, GrafanaInterpolation g) {
    if (node instanceof Map<?, ?> m) {
      m.forEach((k, v) -> expandAll(v, where + "." + k, g));
    } else if (node instanceof List<?> l) {
      for (int i = 0; i < l.size(); i++) {
        expandAll(l.get(i), where + "[" + i + "]", g);
      }
    } else if (node instanceof String s && s.contains("$")) {
      assertThat(g.interpolate(s)).as(where + " = '" + s + "' as Grafana expands it").isNotBlank()
          .doesNotContain("${");
    }
  }

  /** What the site of docs/deployment.md puts in .env: the variables compose requires. */
  private static final Map<String, String> DOT_ENV = Map.of("STUNWATCH_ALERT_WEBHOOK_URL",
      "https://alerts.example.com/hooks/stunwatch", "STUNWATCH_KAFKA_WORKERS_ADDRESS", "stunwatch.example.com:9094");

  /**
   * A value of docker-compose.yml as compose hands it over with docs/deployment.md's .env: {@code $$} is a {@code $},
   * {@code ${VAR:-default}} its default when unset, {@code ${VAR:?why}} required.
   */
  static String composeValue(String raw) {
    Matcher m = Pattern.compile("\\$\\{([A-Z0-9_]+)(?:(:?[-?])([^}]*))?}").matcher(raw.replace("$$", "\u0000"));
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String set = DOT_ENV.get(m.group(1));
      String value;
      if (set != null) {
        value = set;
      } else if (m.group(2) != null && m.group(2).endsWith("?")) {
        throw new AssertionError("compose requires " + m.group(1) + " (" + m.group(3) + "), which .env lacks");
      } else {
        value = m.group(3) == null ? "" : m.group(3);
      }
      m.appendReplacement(out, Matcher.quoteReplacement(value));
    }
    m.appendTail(out);
    return out.toString().replace('\u0000', '$');
  }

  @Test
  @SuppressWarnings("unchecked")
  void grafanasAdminPasswordComesFromASecretAndItsAlertsHaveSomewhereToGo() {
    Map<String, Object> grafana = services().get("grafana");
    Map<String, Object> env = (Map<String, Object>) grafana.getOrDefault("environment", Map.of());
    assertThat(env).doesNotContainKey("GF_SECURITY_ADMIN_PASSWORD");
    assertThat(String.valueOf(env.get("GF_SECURITY_ADMIN_PASSWORD__FILE")))
        .isEqualTo("/run/secrets/grafana-admin-password");
    assertThat((List<Object>) grafana.get("secrets")).contains("grafana-admin-password");
    Map<String, Object> notifications = GrafanaFiles.yaml("grafana/provisioning/alerting/notifications.yml");
    List<Map<String, Object>> points = (List<Map<String, Object>>) notifications.get("contactPoints");
    List<Map<String, Object>> policies = (List<Map<String, Object>>) notifications.get("policies");
    assertThat(points).isNotEmpty();
    assertThat(policies).singleElement().satisfies(p -> assertThat(points).extracting(c -> c.get("name"))
        .contains(p.get("receiver")));
    for (Map<String, Object> c : points) {
      for (Map<String, Object> r : (List<Map<String, Object>>) c.get("receivers")) {
        assertThat(r.get("uid")).as("a receiver uid").isNotNull();
        assertThat(String.valueOf(((Map<String, Object>) r.get("settings")).get("url")))
            .as("the webhook URL comes from the environment").isEqualTo("${STUNWATCH_ALERT_WEBHOOK_URL}");
      }
    }
  }

  @Test
  void theSystemdUnitsRunStunwatchUnprivilegedWithSettingsItReads() {
    Map<String, String> units = Map.of("stunwatch-worker.service", "collect worker", "stunwatch-api.service", "api",
        "stunwatch-vcenter.service", "collect vcenter", "stunwatch-hosts.service", "collect hosts");
    Set<String> known = knownVariables();
    Matcher m = Pattern.compile("^Environment=([A-Z_]+)=").matcher("");
    units.forEach((file, command) -> {
      List<String> unit = lines("deploy/systemd/" + file);
      assertThat(unit).as(file).contains("User=stunwatch", "NoNewPrivileges=true", "ProtectSystem=strict");
      assertThat(unit).as(file).anyMatch(l -> l.startsWith("ExecStart=") && l.endsWith("stunwatch.jar " + command));
      assertThat(unit).as(file + ": secrets come as credentials, never as values")
          .noneMatch(l -> l.matches("Environment=STUNWATCH_[A-Z_]*(TOKEN|PASSWORD)=.*") && !l.contains("%d/"));
      for (String l : unit) {
        if (m.reset(l).find()) {
          assertThat(known).as(file + ": " + l).contains(m.group(1));
        }
      }
    });
    for (String example : List.of("worker.conf.example", "server.conf.example")) {
      for (String l : lines("deploy/systemd/" + example)) {
        if (!l.isBlank() && !l.startsWith("#")) {
          String key = l.substring(0, l.indexOf('='));
          assertThat(ConfigCatalog.ALL).as(example + ": " + l).anyMatch(k -> k.name().equals(key));
        }
      }
    }
  }

  private static List<String> lines(String relative) {
    try {
      return Files.readAllLines(ROOT.resolve(relative));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
