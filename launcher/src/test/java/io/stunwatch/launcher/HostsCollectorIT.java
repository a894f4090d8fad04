package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.vmware.vim25.mo.HostSystem;
import com.vmware.vim25.mo.VirtualMachine;
import io.stunwatch.collectors.vcenter.VcsimAdmin;
import io.stunwatch.testsupport.Ports;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.KafkaBrokerExtension;
import io.stunwatch.testsupport.OpenSshServer;
import io.stunwatch.testsupport.RealPeers;
import io.stunwatch.testsupport.StunwatchProcess;
import io.stunwatch.testsupport.Vcsim;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code stunwatch collect hosts} against Debian's OpenSSH servers on loopback ports, each playing one ESXi
 * host of a vcsim inventory (published by the real {@code collect vcenter}) with a fake {@code nvidia-smi} on its
 * PATH that prints {@code vgpu -q -l} blocks of the VMs the test puts there. A VM busy on one host is migrated to
 * another in vcsim; its impact and alert come out of the real processor as the HOST view. Meanwhile a host that
 * accepts connections and never answers times out without holding up the others, a host added to vCenter is
 * refused until its key is pinned, then followed until it is removed, a host whose key changes is refused and counted, and a host dropped from the list is
 * no longer followed.
 */
class HostsCollectorIT {

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.perClass();

  private static final String TOKEN = "hosts-it-token-0123456789";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void everyHostIsReadOverSshAndAMigrationBetweenThemIsAHostViewImpactAndAlert() throws Exception {
    RealPeers.sshd();
    try (Vcsim vcsim = Vcsim.start(true, "-cluster", "1", "-host", "3");
        ServerSocket hung = new ServerSocket(0)) {
      VcsimAdmin admin = new VcsimAdmin(vcsim);
      HostSystem a = admin.host("DC0_C0_H0");
      HostSystem b = admin.host("DC0_C0_H1");
      VirtualMachine vm = null;
      for (VirtualMachine v : admin.vms()) {
        if (admin.hostOf(v).getMOR().getVal().equals(a.getMOR().getVal())) {
          vm = v;
          break;
        }
      }
      assertThat(vm).as("a VM on " + a.getName()).isNotNull();
      String vmName = vm.getName();
      String vmUuid = vm.getConfig().getUuid();

      Path key = dir.resolve("id_ecdsa");
      OpenSshServer.keygen(key);
      String pub = Files.readString(Path.of(key + ".pub"));
      Map<String, OpenSshServer> esx = new HashMap<>();
      for (String h : List.of("DC0_C0_H0", "DC0_C0_H1", "esx-new.lab")) {
        Path home = dir.resolve(h);
        Files.createDirectories(home.resolve("bin"));
        fakeNvidiaSmi(home);
        followsVmkernelLog(home);
        esx.put(h, OpenSshServer.start(home, pub));
      }
      try {
        vms("DC0_C0_H0", vmName + " 90 15360");
        vms("DC0_C0_H1", "idle-b 2 512");
        vms("esx-new.lab", "idle-n 1 256");
        Path knownHosts = dir.resolve("known_hosts");
        // the host that vCenter gets later is not pinned yet
        Files.write(knownHosts, List.of(esx.get("DC0_C0_H0").knownHostsLine(), esx.get("DC0_C0_H1").knownHostsLine()));
        Path book = dir.resolve("hosts");
        Files.writeString(book, "# the inventory's hosts, reached on loopback\n"
            + "DC0_C0_H0 127.0.0.1:" + esx.get("DC0_C0_H0").port() + "\n"
            + "DC0_C0_H1 127.0.0.1:" + esx.get("DC0_C0_H1").port() + "\n"
            + "DC0_H0 127.0.0.1:" + hung.getLocalPort() + "   # accepts, never answers\n"
            + "esx-new.lab 127.0.0.1:" + esx.get("esx-new.lab").port() + "   # not in vCenter yet\n");

        Path vcConfig = dir.resolve("vcenter.properties");
        Files.writeString(vcConfig, "vcenter.urls=" + vcsim.sdk() + "\nvcenter.thumbprints=127.0.0.1="
            + vcsim.sha256() + "\nvcenter.poll-interval=200ms\nvcenter.inventory-interval=1s\n"
            + "kafka.bootstrap-servers=" + KAFKA.bootstrapServers() + "\n");
        Path password = dir.resolve("vcenter.pw");
        Files.writeString(password, vcsim.password() + "\n");
        int metricsPort = Ports.reserve();
        Path hostsConfig = dir.resolve("hosts.properties");
        Files.writeString(hostsConfig, "kafka.bootstrap-servers=" + KAFKA.bootstrapServers() + "\n"
            + "hosts.file=" + book + "\nhosts.ssh.user=" + System.getProperty("user.name") + "\n"
            + "hosts.ssh.identity-file=" + key + "\nhosts.ssh.known-hosts=" + knownHosts + "\n"
            + "hosts.interval=1s\nhosts.silent-after=4s\nhosts.connect-timeout=3s\nhosts.max-backoff=2s\n"
            + "hosts.metrics-port=" + metricsPort + "\nhosts.vmkernel-command=vmkernel-tail\n");
        int apiPort = Ports.reserve();
        try (StunwatchProcess vcenter = StunwatchProcess.start(Map.of("STUNWATCH_VCENTER_USERNAME",
                vcsim.username(), "STUNWATCH_VCENTER_PASSWORD_FILE", password.toString()),
                "collect", "vcenter", "--config", vcConfig.toString());
            StunwatchProcess api = StunwatchProcess.start(Map.of("STUNWATCH_KAFKA_BOOTSTRAP_SERVERS",
                KAFKA.bootstrapServers(), "STUNWATCH_PROCESS_STATE_DIR", dir.resolve("state").toString(),
                "STUNWATCH_PROCESS_BEFORE_WINDOW", "10s", "STUNWATCH_PROCESS_ALERT_WINDOW", "10s",
                "STUNWATCH_PROCESS_SETTLE_WINDOW", "5s", "STUNWATCH_API_HOST", "127.0.0.1",
                "STUNWATCH_API_PORT", String.valueOf(apiPort), "STUNWATCH_API_TOKEN", TOKEN), "api");
            StunwatchProcess hosts = StunwatchProcess.start(Map.of(), "collect", "hosts", "--config",
                hostsConfig.toString())) {
          vcenter.awaitStdout("vCenter collector running", Duration.ofSeconds(60));
          hosts.awaitStdout("Hosts collector running", Duration.ofSeconds(60));
          api.awaitStdout("Stunwatch API listening", Duration.ofSeconds(90));
          // what the hosts collector logged, and the vCenter collector, whose inventory says which hosts to follow
          java.util.function.Supplier<String> logs = () -> String.join("\n", hosts.stderr())
              + "\n--- collect vcenter ---\n" + String.join("\n", vcenter.stderr());

          // the two reachable hosts give readings; the hung one times out and is tried again, holding up neither.
          // "streaming" alone is not a reading: it is set when the command starts, before it prints anything.
          Map<String, Double> m = new HashMap<>();
          Await.until(Duration.ofSeconds(60), Duration.ofMillis(200), () -> {
            m.clear();
            m.putAll(metrics(metricsPort));
            return m.getOrDefault("hosts{state=\"streaming\"}", 0.0) == 2.0
                && m.getOrDefault(failures("DC0_H0", "timeout"), 0.0) >= 2.0
                && m.getOrDefault(age("DC0_C0_H0"), Double.NaN) < 3.0
                && m.getOrDefault(age("DC0_C0_H1"), Double.NaN) < 3.0;
          }, "two hosts streaming with readings under 3 s old, and the hung one timed out twice",
              () -> "collector's series " + m + "\n" + logs.get());
          assertThat(m).as("in the inventory, not named, no GPU").doesNotContainKey(age("DC0_C0_H2"));
          assertThat(m).as("named, not in the inventory").doesNotContainKey(age("esx-new.lab"));

          // 15 s busy on H0; the source stops reporting the VM as it is stunned; vMotion to H1, where it reads 85 %
          Thread.sleep(15_000);
          // the source host stops the precopy and logs its bandwidth, which the follower of its vmkernel.log reads
          Instant stop = Instant.now();
          Files.writeString(dir.resolve("DC0_C0_H0").resolve("vmkernel.log"), stop + " In(182) vmkernel: "
              + "cpu3:2099543)VMotion: 4650: " + VMOTION_ID + " S: Stopping pre-copy: only 1296 pages left to send, "
              + "which can be sent within the switchover time goal of 0.500 seconds (network bandwidth ~145.404 MB/s, "
              + "101088% t2d)\n", StandardOpenOption.APPEND);
          vms("DC0_C0_H0", "");
          Thread.sleep(1_500);
          // the VM's logs as ESXi leaves them: the source's part rotated out, the destination's in the new one;
          // written before vCenter says the move completed, when the vCenter collector reads them
          Instant resumed = Instant.now();
          admin.writeVmFile(vm, "vmware-1.log", String.join("\n",
              stop.minusSeconds(16) + " In(05) vmx - Received migrate 'to' request for mid id " + VMOTION_ID
                  + ", src ip <10.0.0.1>, dst ip <10.0.0.2>.",
              stop.minusSeconds(16) + " In(05) vmx - MigrateSetState: Transitioning from state 0 to 1.",
              stop.plusMillis(10) + " In(05) vmx - Migrate: VM starting stun, waiting 100 seconds for go/no-go "
                  + "message.",
              stop.plusMillis(90) + " In(05) vcpu-0 - Migrate: VM successfully stunned", "")
              .getBytes(StandardCharsets.UTF_8));
          admin.writeVmFile(vm, "vmware.log", String.join("\n",
              stop.plusMillis(120) + " In(05) vmx - Migrate_Open: Restoring from <10.0.0.1> with migration id "
                  + VMOTION_ID,
              resumed + " In(05) vcpu-0 - Checkpoint_Unstun: vm stopped for "
                  + Duration.between(stop.plusMillis(90), resumed).toNanos() / 1000 + " us", "")
              .getBytes(StandardCharsets.UTF_8));
          // vcsim's task and the VmMigratedEvent the test posts are two chains; the event's is the one checked
          int eventKey = admin.relocateAndPost(vm, b);
          vms("DC0_C0_H1", "idle-b 2 512\n" + vmName + " 85 15360");

          String path = "/api/migrations?vm=" + URLEncoder.encode(vmUuid, StandardCharsets.UTF_8);
          JsonNode[] impact = new JsonNode[1];
          Await.until(Duration.ofSeconds(90), () -> {
            JsonNode list = getOrNull(apiPort, path);
            if (list == null) {
              return false;
            }
            String id = null;
            for (JsonNode row : list) {
              if (row.path("migration").path("id").asText().endsWith("/" + eventKey)) {
                id = row.path("migration").path("id").asText();
              }
            }
            if (id == null) {
              return false;
            }
            impact[0] = getOrNull(apiPort, "/api/migrations/" + URLEncoder.encode(id, StandardCharsets.UTF_8));
            return impact[0] != null && impact[0].has("after") && impact[0].path("after").has("gpuUtilizationPct");
          }, "the migration's impact settled with its after phase", () -> String.join("\n", api.stderr()));
          JsonNode i = impact[0];
          assertThat(i.path("loadSource").asText()).isEqualTo("HOST");
          // the source host's bandwidth, joined to the VM by the vMotion id its vmware.log gave, whichever came first
          String settledPath = "/api/migrations/" + URLEncoder.encode(i.path("migration").path("id").asText(),
              StandardCharsets.UTF_8);
          Await.until(Duration.ofSeconds(60), () -> {
            JsonNode now = getOrNull(apiPort, settledPath);
            impact[0] = now == null ? impact[0] : now;
            return now != null && now.has("vmotionBandwidthMBps") && now.path("phases").has("timeToStopSeconds");
          }, "the impact with its vMotion's bandwidth and phases",
              () -> impact[0] + "\n" + String.join("\n", vcenter.stderr()) + "\n" + String.join("\n", hosts.stderr()));
          i = impact[0];
          assertThat(i.path("vmotionId").asText()).isEqualTo(VMOTION_ID);
          assertThat(i.path("vmotionBandwidthMBps").asDouble()).isEqualTo(145.404);
          assertThat(i.path("pagesLeftAtSwitchover").asLong()).isEqualTo(1296);
          assertThat(i.path("phases").path("timeToStopSeconds").asDouble()).isEqualTo(0.08);
          assertThat(i.path("phases").path("precopySeconds").asDouble()).isEqualTo(16.01);
          assertThat(i.path("before").path("gpuUtilizationPct").asDouble()).isEqualTo(90.0);
          assertThat(i.path("after").path("gpuUtilizationPct").asDouble()).as("read on the destination host")
              .isEqualTo(85.0);
          String migrationId = i.path("migration").path("id").asText();
          Await.until(Duration.ofSeconds(60), () -> {
            JsonNode alerts = getOrNull(apiPort, "/api/alerts");
            if (alerts == null) {
              return false;
            }
            for (JsonNode al : alerts) {
              if (al.path("migrationId").asText().equals(migrationId)) {
                return al.path("load").path("source").asText().equals("HOST");
              }
            }
            return false;
          }, "a HOST-view alert for the migration", () -> String.join("\n", api.stderr()));

          // a host added to vCenter is followed, and no longer once it is removed from vCenter
          // its key not pinned yet: refused and counted, never trusted on first use; pinned, it streams
          admin.addHost("esx-new.lab");
          Await.until(Duration.ofSeconds(30), () -> metrics(metricsPort).getOrDefault(
              failures("esx-new.lab", "unknown-host-key"), 0.0) >= 1.0, "the unpinned host refused", logs);
          assertThat(hosts.stderr()).anyMatch(l -> l.contains("esx-new.lab") && l.contains("not in known_hosts"));
          Files.write(knownHosts, List.of(esx.get("esx-new.lab").knownHostsLine()), StandardOpenOption.APPEND);
          Await.until(Duration.ofSeconds(30), () -> metrics(metricsPort).getOrDefault("hosts{state=\"streaming\"}",
              0.0) == 3.0, "the host added to vCenter streaming once pinned", logs);
          admin.removeHost("esx-new.lab");
          Await.until(Duration.ofSeconds(30), () -> !metrics(metricsPort).containsKey(age("esx-new.lab")),
              "the host removed from vCenter no longer followed", logs);

          // a host reinstalled with a new key: its stream breaks, and the new key is refused and counted
          esx.get("DC0_C0_H1").newHostKey();
          Await.until(Duration.ofSeconds(30), () -> metrics(metricsPort).getOrDefault(
              failures("DC0_C0_H1", "changed-host-key"), 0.0) >= 1.0, "the changed key refused", logs);
          assertThat(hosts.stderr()).anyMatch(l -> l.contains("DC0_C0_H1") && l.contains("not the one pinned"));
          Await.until(Duration.ofSeconds(30), Duration.ofMillis(200),
              () -> metrics(metricsPort).getOrDefault(age("DC0_C0_H0"), Double.NaN) < 3.0,
              "DC0_C0_H0 still reading beside the refused host", () -> metrics(metricsPort) + "\n" + logs.get());

          // a host dropped from the list is no longer followed, and its series go
          List<String> kept = new ArrayList<>();
          for (String line : Files.readAllLines(book)) {
            if (!line.startsWith("DC0_H0 ")) {
              kept.add(line);
            }
          }
          Files.write(book, kept);
          Await.until(Duration.ofSeconds(30), () -> !metrics(metricsPort).containsKey(age("DC0_H0")),
              "the dropped host's series gone", logs);
          assertThat(hosts.stderr()).noneMatch(l -> l.contains(" ERROR "));
        }
      } finally {
        esx.values().forEach(OpenSshServer::close);
      }
    }
  }

  /**
   * The host's {@code nvidia-smi}: {@code vgpu -q [-l N]} prints a block of the VMs in {@code vms} (one
   * {@code name utilization fb-used-MiB} per line), stamped as ESXi does, every N seconds; {@code vgpu -ss} prints
   * the scheduler state.
   */
  private static void fakeNvidiaSmi(Path home) throws IOException {
    Path script = home.resolve("bin/nvidia-smi");
    Files.writeString(script, """
        #!/bin/bash
        home="$(cd "$(dirname "$0")/.." && pwd)"
        if [ "$1 $2" = "vgpu -ss" ]; then
          printf 'GPU 00000000:3B:00.0\\n    vGPU Scheduler State\\n        Scheduler Policy : Equal Share\\n'
          printf '        ARR Mode : Disabled\\n'
          exit 0
        fi
        [ "$1 $2" = "vgpu -q" ] || { echo "nvidia-smi: unsupported: $*" >&2; exit 2; }
        while :; do
          n=$(grep -c . "$home/vms" 2>/dev/null || true)
          printf '\\n==============NVSMI LOG==============\\n\\nTimestamp                 : %s\\n' \\
            "$(date -u '+%a %b %e %H:%M:%S %Y')"
          printf 'Driver Version            : 550.90.05\\n\\nGPU 00000000:3B:00.0\\n'
          printf '    Product Name          : Tesla T4\\n    Active vGPUs          : %s\\n' "${n:-0}"
          id=3251634000
          while read -r name util used; do
            [ -n "$name" ] || continue
            id=$((id + 1))
            printf '    vGPU ID               : %s\\n        VM ID             : %s\\n' "$id" "$((id - 3249530000))"
            printf '        VM Name           : %s\\n        vGPU Name         : GRID T4-16C\\n' "$name"
            printf '        GPU Instance ID   : N/A\\n        FB Memory Usage\\n'
            printf '            Total         : 16384 MiB\\n            Used          : %s MiB\\n' "$used"
            printf '        Utilization\\n            Gpu           : %s %%\\n' "$util"
          done < "$home/vms"
          [ "$3" = "-l" ] || exit 0
          sleep "$4"
        done
        """);
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /** The vMotion id of the move: as the source's vmkernel.log and the VM's vmware.log print it. */
  private static final String VMOTION_ID = "1446046703473901";

  /**
   * The host's follower of its vmkernel.log ({@code hosts.vmkernel-command}): the real {@code tail -n 0 -F}, of the
   * host's own log, which the test appends to.
   */
  private static void followsVmkernelLog(Path home) throws IOException {
    Files.writeString(home.resolve("vmkernel.log"), "");
    Path script = home.resolve("bin/vmkernel-tail");
    Files.writeString(script, """
        #!/bin/bash
        home="$(cd "$(dirname "$0")/.." && pwd)"
        exec tail -n 0 -F "$home/vmkernel.log"
        """);
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private void vms(String host, String lines) throws IOException {
    Path f = dir.resolve(host).resolve("vms");
    Path tmp = dir.resolve(host).resolve("vms.tmp");
    Files.writeString(tmp, lines.isEmpty() ? "" : lines + "\n");
    Files.move(tmp, f, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  private static String failures(String host, String reason) {
    return "host_failures_total{host=\"" + host + "\",reason=\"" + reason + "\"}";
  }

  private static String age(String host) {
    return "host_reading_age_seconds{host=\"" + host + "\"}";
  }

  private static final Pattern SERIES = Pattern.compile("^stunwatch_collector_(\\S+) (\\S+)$");

  /** The collector's own series, named without their common prefix. */
  private Map<String, Double> metrics(int port) {
    Map<String, Double> out = new HashMap<>();
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
      for (String line : r.body().split("\n")) {
        Matcher m = SERIES.matcher(line);
        if (m.matches()) {
          out.put(m.group(1), Double.parseDouble(m.group(2)));
        }
      }
    } catch (IOException e) {
      return out;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return out;
  }

  private JsonNode getOrNull(int port, String path) {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
          .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? JSON.readTree(r.body()) : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

}
