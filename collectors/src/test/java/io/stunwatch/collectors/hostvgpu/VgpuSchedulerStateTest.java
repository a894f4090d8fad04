package io.stunwatch.collectors.hostvgpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class VgpuSchedulerStateTest {

  @Test
  void everyFieldOfEachGpuIsKeptUnderItsSectionAndThePolicyIsFound() {
    Map<String, Map<String, String>> s = VgpuSchedulerState.parse("""
        GPU 00000000:3B:00.0
            vGPU Scheduler State
                Scheduler Policy              : Equal Share
                ARR Mode                      : Enabled
                Average Factor                : 33
                Timeslice                     : 960 us

        GPU 00000000:86:00.0
            Engine Type : 3D
            Scheduler Policy : N/A
            Some Future Field : 7
        """);
    assertThat(s).containsOnlyKeys("00000000:3b:00.0", "00000000:86:00.0");
    assertThat(s.get("00000000:3b:00.0")).containsExactly(
        Map.entry("vGPU Scheduler State/Scheduler Policy", "Equal Share"),
        Map.entry("vGPU Scheduler State/ARR Mode", "Enabled"),
        Map.entry("vGPU Scheduler State/Average Factor", "33"),
        Map.entry("vGPU Scheduler State/Timeslice", "960 us"));
    assertThat(VgpuSchedulerState.policy(s.get("00000000:3b:00.0"))).isEqualTo("Equal Share");
    assertThat(s.get("00000000:86:00.0")).containsEntry("Some Future Field", "7");
    assertThat(VgpuSchedulerState.policy(s.get("00000000:86:00.0"))).as("N/A is no policy").isNull();
    assertThat(VgpuSchedulerState.parse("nvidia-smi: command not found")).isEmpty();
  }
}
