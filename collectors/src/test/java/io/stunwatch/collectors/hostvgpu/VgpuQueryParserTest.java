package io.stunwatch.collectors.hostvgpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.model.HostVgpuSample;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class VgpuQueryParserTest {

  private static final Instant T = Instant.parse("2026-11-21T12:00:00Z");
  private final VgpuQueryParser parser = new VgpuQueryParser();

  @Test
  void eachVgpuBecomesASampleWithItsVmFramebufferAndUtilization() throws Exception {
    String text = Files.readString(Path.of("src/test/resources/hostvgpu/vgpu-q-two-gpus.txt"));
    List<HostVgpuSample> s = parser.parse(text, "esx01", T, "vgpu-q");
    assertThat(s).hasSize(2);
    HostVgpuSample train = s.get(0);
    assertThat(train.vmId()).isEqualTo("421c9f3a-5b6c-7d8e-9fa0-b1c2d3e4f506");
    assertThat(train.key()).isEqualTo(train.vmId());
    assertThat(train.vmName()).isEqualTo("train-01");
    assertThat(train.gpuPciBusId()).isEqualTo("00000000:3B:00.0");
    assertThat(train.vgpuInstanceId()).isEqualTo("3251634213");
    assertThat(train.vgpuType()).isEqualTo("GRID T4-16C");
    assertThat(train.vgpuProfile().name()).isEqualTo("T4-16C");
    assertThat(train.fbTotalMiB()).isEqualTo(16384L);
    assertThat(train.fbUsedMiB()).isEqualTo(15360L);
    assertThat(train.utilizationGpuPct()).isEqualTo(88.0);
    assertThat(train.utilizationMemoryPct()).isEqualTo(41.0);
    assertThat(train.timestamp()).isEqualTo(T);
  }

  @Test
  void gpuSpelledInCapitalsAndMissingValuesAndAMissingUuidAreHandled() throws Exception {
    String text = Files.readString(Path.of("src/test/resources/hostvgpu/vgpu-q-two-gpus.txt"));
    HostVgpuSample infer = parser.parse(text, "esx01", T, "vgpu-q").get(1);
    assertThat(infer.utilizationGpuPct()).as("'GPU' spelling").isEqualTo(3.0);
    assertThat(infer.fbUsedMiB()).as("N/A is unknown, not 0").isNull();
    assertThat(infer.vmId()).isNull();
    assertThat(infer.key()).isEqualTo("name:esx01/infer-02");
  }

  @Test
  void schedulerPolicyIsTakenFromTheGpuBlock() throws Exception {
    String text = "GPU 00000000:3B:00.0\n    vGPU Software Scheduler\n        Scheduling Policy : Equal Share\n"
        + "    Active vGPUs : 1\n    vGPU ID : 7\n        VM Name : a\n        vGPU Name : GRID A100-4C\n";
    HostVgpuSample s = parser.parse(text, "h", T, "x").get(0);
    assertThat(s.schedulerPolicy()).isEqualTo("Equal Share");
  }

  @Test
  void otherTextIsRejectedAndBadValuesNameTheVgpuAndLine() {
    assertThatThrownBy(() -> parser.parse("NVIDIA-SMI has failed because it couldn't communicate", "h", T, "cmd"))
        .hasMessage("cmd: no 'GPU <bus id>' block: not nvidia-smi vgpu -q output");
    assertThatThrownBy(() -> parser.parse("GPU 0\n    vGPU ID : 9\n        VM Name : a\n"
        + "        FB Memory Usage\n            Total : lots\n", "h", T, "cmd"))
        .hasMessage("cmd:2: vGPU 9: 'lots' is not a size in MiB");
  }

  @Test
  void esxiWorldIdsMigBackedVgpusAndUnknownUtilizationAreRead() throws Exception {
    String text = Files.readString(Path.of("src/test/resources/hostvgpu/vgpu-q-mig-no-banner.txt"));
    List<HostVgpuSample> s = parser.parse(text.substring(0, text.indexOf("Timestamp", 10)), "kvm01", T, "x");
    assertThat(s).extracting(HostVgpuSample::vmName).containsExactly("mig-a", "mig-b");
    assertThat(s).extracting(HostVgpuSample::gpuInstanceId).containsExactly(1, 2);
    assertThat(s.get(0).vmId()).isEqualTo("6f1c0c5e-2d51-4b0a-9a7e-1f2e3d4c5b6a");
    assertThat(s.get(0).gpuName()).isEqualTo("NVIDIA A100-PCIE-40GB");
    assertThat(s.get(0).utilizationGpuPct()).as("N/A is unknown").isNull();
    assertThat(s.get(1).utilizationGpuPct()).as("[Not Supported] is unknown").isNull();
    assertThat(s.get(1).fbUsedMiB()).isNull();

    String esxi = "GPU 00000000:3B:00.0\n    Active vGPUs : 1\n    vGPU ID : 3251634213\n"
        + "        VM ID : 2103582\n        VM Name : train-01\n        GPU Instance ID : N/A\n";
    HostVgpuSample e = parser.parse(esxi, "esx01", T, "x").get(0);
    assertThat(e.vmWorldId()).isEqualTo("2103582");
    assertThat(e.vmId()).as("a world id is no VM identity").isNull();
    assertThat(e.key()).isEqualTo("name:esx01/train-01");
    assertThat(e.gpuInstanceId()).isNull();

    String xen = "GPU 00000000:3B:00.0\n    vGPU ID : 1\n        VM ID : 6F1C0C5E-2D51-4B0A-9A7E-1F2E3D4C5B6A\n"
        + "        VM Name : x\n";
    assertThat(parser.parse(xen, "xen01", T, "x").get(0).vmId()).isEqualTo("6f1c0c5e-2d51-4b0a-9a7e-1f2e3d4c5b6a");
  }

  @Test
  void aGpuWithNoVgpuGivesNoSample() throws Exception {
    assertThat(parser.parse("GPU 00000000:3B:00.0\n    Active vGPUs : 0\n", "esx01", T, "x")).isEmpty();
  }
}
