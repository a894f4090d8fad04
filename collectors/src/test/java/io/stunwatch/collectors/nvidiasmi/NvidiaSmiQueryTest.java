package io.stunwatch.collectors.nvidiasmi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class NvidiaSmiQueryTest {

  @Test
  void anOldDriverGetsOnlyTheFieldsItKnows() throws Exception {
    String help = Files.readString(Path.of("src/test/resources/nvidiasmi/help-query-gpu-old-driver.txt"));
    NvidiaSmiQuery q = NvidiaSmiQuery.fromHelp(help);
    assertThat(q.fields()).containsExactly(GpuField.TIMESTAMP, GpuField.INDEX, GpuField.UUID, GpuField.NAME,
        GpuField.PCI_BUS_ID, GpuField.UTILIZATION_GPU, GpuField.MEMORY_USED, GpuField.MEMORY_TOTAL,
        GpuField.CLOCKS_SM);
    assertThat(q.missing()).containsExactly(GpuField.UTILIZATION_MEMORY, GpuField.POWER_DRAW,
        GpuField.TEMPERATURE_GPU, GpuField.PSTATE);
    assertThat(q.queryArgument()).isEqualTo(
        "timestamp,index,uuid,name,pci.bus_id,utilization.gpu,memory.used,memory.total,clocks.sm");
  }

  @Test
  void aliasesOnEitherSideAreRecognized() {
    assertThat(NvidiaSmiQuery.supportedNames("\"clocks.current.sm\" or \"clocks.sm\"\n\"gpu_name\"\n"))
        .containsExactlyInAnyOrder("clocks.current.sm", "clocks.sm", "gpu_name");
    assertThat(GpuField.of("clocks.current.sm [MHz]")).contains(GpuField.CLOCKS_SM);
    assertThat(GpuField.of("memory.used [MiB]")).contains(GpuField.MEMORY_USED);
    assertThat(GpuField.of("fan.speed [%]")).isEmpty();
  }

  @Test
  void helpWithoutTheIndexFieldCannotWork() {
    assertThatThrownBy(() -> NvidiaSmiQuery.fromHelp("\"timestamp\"\n\"name\"\n"))
        .hasMessageContaining("required field index");
    assertThatThrownBy(() -> NvidiaSmiQuery.fromHelp("nvidia-smi: command not found"))
        .hasMessageContaining("listed no fields");
  }
}
