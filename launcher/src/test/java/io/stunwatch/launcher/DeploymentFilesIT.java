package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.topic.Topics;
import io.stunwatch.testsupport.Ports;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.KafkaBrokerExtension;
import io.stunwatch.testsupport.RealPeers;
import io.stunwatch.testsupport.StunwatchProcess;
import io.stunwatch.testsupport.TopicContents;
import io.stunwatch.testsupport.Vcsim;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The site's files as the real programs read them, where a container engine is not needed to do so: Prometheus'
 * configuration through {@code promtool}, the Alertmanager configuration compose renders through {@code amtool},
 * and the simulated vCenter of {@code deploy/vcsim}: its entry point (openssl, then vcsim) and the vCenter
 * collector with the environment the two compose files give it, trusting the generated certificate.
 */
class DeploymentFilesIT {

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.perClass();

  @TempDir
  Path dir;

  @Test
  void prometheusAndAlertmanagerAcceptTheSitesConfiguration() throws Exception {
    Path promtool = RealPeers.promtool();
    Path amtool = RealPeers.amtool();
    Path root = GrafanaFiles.root();
    // the paths of the container, where the compose file mounts them, are files of the checkout here
    Files.createDirectories(dir.resolve("workers"));
    Files.copy(root.resolve("deploy/prometheus/workers/gpu-workers.yml.example"), dir.resolve("workers/gpu.yml"));
    String config = Files.readString(root.resolve("deploy/prometheus/prometheus.yml"))
        .replace("/etc/prometheus/rules.yml", root.resolve("prometheus/rules.yml").toString())
        .replace("/etc/prometheus/workers/", dir.resolve("workers") + "/");
    Path prometheusYml = dir.resolve("prometheus.yml");
    Files.writeString(prometheusYml, config);
    assertThat(run(promtool.toString(), "check", "config", prometheusYml.toString()))
        .as("promtool check config deploy/prometheus/prometheus.yml").isZero();
    // the worker list in file_sd form: promtool's own check of a service discovery file
    assertThat(run(promtool.toString(), "check", "service-discovery", prometheusYml.toString(), "stunwatch-workers"))
        .as("the example worker list is read as targets").isZero();

    @SuppressWarnings("unchecked")
    Map<String, Map<String, Object>> configs = (Map<String, Map<String, Object>>) GrafanaFiles.yaml(
        "docker-compose.yml").get("configs");
    String alertmanager = DeploymentFilesTest.composeValue(String.valueOf(configs.get("alertmanager").get("content")));
    Path alertmanagerYml = dir.resolve("alertmanager.yml");
    Files.writeString(alertmanagerYml, alertmanager);
    assertThat(alertmanager).contains("url: https://alerts.example.com/hooks/stunwatch");
    assertThat(run(amtool.toString(), "check-config", alertmanagerYml.toString()))
        .as("amtool check-config of the configuration compose renders").isZero();
  }

  @Test
  @SuppressWarnings("unchecked")
  void theSimulatedVcentersEntryPointServesACertificateTheCollectorVerifies() throws Exception {
    RealPeers.openssl();
    Path vcsimBinary = Vcsim.binary();
    Path root = GrafanaFiles.root();
    Map<String, Map<String, Object>> override = (Map<String, Map<String, Object>>) GrafanaFiles.yaml(
        "deploy/vcsim/docker-compose.vcsim.yml").get("services");
    Map<String, Object> vcsim = override.get("vcsim");
    String password = "vcsim-it-" + Long.toHexString(System.nanoTime());
    Path secret = dir.resolve("vcenter-password");
    Files.writeString(secret, password + "\n");
    Path tls = Files.createDirectories(dir.resolve("tls"));
    int port = Ports.reserve();
    List<String> command = new ArrayList<>(List.of("sh", root.resolve("deploy/vcsim/entrypoint.sh").toString()));
    for (Object arg : (List<Object>) vcsim.get("command")) {
      command.add(String.valueOf(arg).replace("/run/secrets/vcenter-password", secret.toString()));
    }
    ProcessBuilder pb = new ProcessBuilder(command).redirectError(dir.resolve("vcsim.err").toFile());
    // here the simulator is reached as localhost, in the site as the compose service vcsim
    pb.environment().putAll(Map.of("VCSIM", vcsimBinary.toString(), "VCSIM_TLS_DIR", tls.toString(),
        "VCSIM_TLS_NAMES", "localhost", "VCSIM_LISTEN", "127.0.0.1:" + port));
    Process simulator = pb.start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(simulator.getInputStream(),
          StandardCharsets.UTF_8));
      String url = out.readLine();
      assertThat(url).as("vcsim's first line; stderr: " + Files.readString(dir.resolve("vcsim.err")))
          .isNotNull().startsWith("VCSIM_URL=https://stunwatch@").doesNotContain(password);
      assertThat(tls.resolve("vcsim.pem")).isNotEmptyFile();

      Map<String, Object> collector = (Map<String, Object>) DeploymentFilesTest.services()
          .get("stunwatch-vcenter-collector");
      Map<String, String> env = new HashMap<>();
      ((Map<String, Object>) collector.get("environment")).forEach((k, v) ->
          env.put(k, DeploymentFilesTest.composeValue(String.valueOf(v))));
      ((Map<String, Object>) override.get("stunwatch-vcenter-collector").get("environment")).forEach((k, v) ->
          env.put(k, String.valueOf(v)));
      env.put("STUNWATCH_KAFKA_BOOTSTRAP_SERVERS", KAFKA.bootstrapServers());
      env.put("STUNWATCH_VCENTER_URLS", env.get("STUNWATCH_VCENTER_URLS").replace("vcsim:8989", "localhost:" + port));
      env.put("STUNWATCH_VCENTER_CA_FILE", env.get("STUNWATCH_VCENTER_CA_FILE").replace("/vcsim-tls/",
          tls + "/"));
      env.put("STUNWATCH_VCENTER_PASSWORD_FILE", secret.toString());
      env.put("STUNWATCH_VCENTER_METRICS_PORT", "0");
      try (StunwatchProcess p = StunwatchProcess.start(env, "collect", "vcenter")) {
        p.awaitStdout("vCenter collector running", Duration.ofSeconds(60));
        Await.until(Duration.ofSeconds(60), () -> !TopicContents.readAll(KAFKA.bootstrapServers(),
            Topics.VM_INVENTORY).isEmpty(), "the simulated vCenter's VMs in the inventory", p::stderr);
        assertThat(p.stderr()).noneMatch(l -> l.contains(password));
        assertThat(p.stderr()).noneMatch(l -> l.toLowerCase(Locale.ROOT).contains("insecure"));
      }
    } finally {
      simulator.destroy();
      if (!simulator.waitFor(10, TimeUnit.SECONDS)) {
        simulator.destroyForcibly();
      }
    }
  }

  @Test
  void theWorkerUnitIsRatedOkOrBetterBySystemdAnalyze() throws Exception {
    // it runs in tenants' VMs: what it may do on the VM is kept to reading counters, running nvidia-smi and Kafka
    Path analyze = RealPeers.systemdAnalyze();
    Path unit = GrafanaFiles.root().resolve("deploy/systemd/stunwatch-worker.service");
    Process p = new ProcessBuilder(analyze.toString(), "security", "--offline=true", "--no-pager", unit.toString())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor(60, TimeUnit.SECONDS);
    Matcher m = Pattern.compile("Overall exposure level for [^:]+: ([0-9.]+) (\\w+)")
        .matcher(out);
    assertThat(m.find()).as(out).isTrue();
    assertThat(m.group(2)).as("exposure " + m.group(1) + "\n" + out).isIn("SAFE", "OK");
  }

  private int run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int rc = p.waitFor();
    if (rc != 0) {
      System.err.println(String.join(" ", command) + " → " + rc + ":\n" + output);
    }
    return rc;
  }
}
