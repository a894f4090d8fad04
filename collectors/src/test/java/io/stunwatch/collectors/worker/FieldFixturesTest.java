package io.stunwatch.collectors.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stunwatch.collectors.hostvgpu.NvidiaSmiVgpuSource;
import io.stunwatch.collectors.nvidiasmi.NvidiaSmiReplay;
import io.stunwatch.collectors.vcenter.VcenterReplay;
import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.model.GpuSnapshot;
import io.stunwatch.model.HostVgpuSample;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.testsupport.SharedFixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every file in {@code ../shared/fixtures/field/} (real tools' outputs that third parties published) gives what its
 * {@code PROVENANCE.md} row says it holds, or a named refusal, through the replay's own detection and parsers.
 * Skipped when the folder is absent.
 */
class FieldFixturesTest {

  static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-01T00:00:00Z"), ZoneOffset.UTC);

  /** What each file gives: "N kind" published, or "refused: <what it was seen to be>". */
  static final Map<String, String> EXPECTED = Map.of(
      "nvidia-smi-xml/telegraf-a100-sxm4-v12.xml", "1 snapshot, 4 MIG devices",
      "nvidia-smi-xml/telegraf-a10g.xml", "1 snapshot, 0 MIG devices",
      "nvidia-smi-xml/telegraf-tesla-t4.xml", "1 snapshot, 0 MIG devices",
      "nvidia-smi-xml/telegraf-rtx-4000-sff-ada-v13.xml", "1 snapshot, 0 MIG devices",
      "nvidia-smi-q/cubecos-host-rtxpro6000-blackwell-580-q-trimmed.txt", "refused: a hypervisor host's nvidia-smi -q",
      "vgpu-q/cubecos-kvm-rtxpro6000-blackwell-dc3q-2vgpu.txt", "2 host vGPU readings",
      "vgpu-q/cubecos-kvm-rtxpro6000-580-vgpu-s-v-CUT.txt",
      "refused: nvidia-smi vgpu -s (the vGPU types a host supports)",
      "vcenter-events/veba-VmMigratedEvent-govmomi-json-lab.json", "1 VmMigratedEvent of vm-15161, host-15150 to "
          + "host-15147");

  @Test
  void everyFieldFileGivesWhatItsProvenanceSaysOrANamedRefusal() throws IOException {
    Path field = SharedFixtures.dir("field");
    Map<String, String> seen = new TreeMap<>();
    List<Path> files;
    try (Stream<Path> walk = Files.walk(field)) {
      files = walk.filter(Files::isRegularFile).filter(f -> !f.getFileName().toString().equals("PROVENANCE.md"))
          .sorted().toList();
    }
    for (Path f : files) {
      seen.put(field.relativize(f).toString(), outcome(f));
    }
    assertThat(seen).isEqualTo(new TreeMap<>(EXPECTED));
  }

  private static String outcome(Path f) throws IOException {
    if (f.getParent().getFileName().toString().equals("vcenter-events")) {
      List<InputParseException> errors = new ArrayList<>();
      List<VcenterEvent> events = new VcenterReplay("vc", errors::add).events(f, null);
      assertThat(errors).as(f.toString()).isEmpty();
      return events.size() + " " + events.get(0).eventType() + " of " + events.get(0).vm().value() + ", "
          + events.get(0).sourceHost().value() + " to " + events.get(0).host().value();
    }
    RecordingSink sink = new RecordingSink();
    CollectorMetrics metrics = new CollectorMetrics(new SimpleMeterRegistry(), CLOCK);
    try {
      ReplayKind kind = ReplayKind.detect(f);
      boolean host = kind == ReplayKind.VGPU_QUERY;
      Inputs inputs = new Inputs(host ? new WorkerIdentity(null, "cn13")
          : new WorkerIdentity("4c4c4544-0042-3510-8052-b4c04f4e3232", "guest"), sink, metrics, CLOCK);
      switch (kind) {
        case NVIDIA_SMI_XML -> NvidiaSmiReplay.xml(f, ZoneOffset.UTC, inputs);
        case NVIDIA_SMI_TEXT -> {
          if (NvidiaSmiReplay.hostQuery(f)) {
            throw NvidiaSmiReplay.hostRefusal();
          }
          NvidiaSmiReplay.text(f, ZoneOffset.UTC, inputs);
        }
        case VGPU_QUERY -> NvidiaSmiVgpuSource.replay(f, ZoneOffset.UTC, inputs);
        default -> throw new AssertionError(f + " read as " + kind);
      }
    } catch (ReplayRefusedException e) {
      return "refused: " + e.what();
    }
    for (CollectorInput i : CollectorInput.values()) {
      assertThat(metrics.parseErrorCount(i)).as(f + " " + i).isZero();
    }
    List<GpuSnapshot> snaps = sink.values(GpuSnapshot.class);
    if (!snaps.isEmpty()) {
      return snaps.size() + " snapshot, " + snaps.get(0).gpus().stream().mapToInt(g -> g.migDevices().size()).sum()
          + " MIG devices";
    }
    return sink.values(HostVgpuSample.class).size() + " host vGPU readings";
  }
}
