package io.stunwatch.collectors.hostvgpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class VgpuBlockSplitterTest {

  private final List<VgpuBlockSplitter.Block> blocks = new ArrayList<>();
  private final VgpuBlockSplitter splitter = new VgpuBlockSplitter(blocks::add);

  private void feed(String text) {
    text.lines().forEach(splitter::line);
    splitter.finish();
  }

  @Test
  void blocksAfterBannersCarryTheirTimestampAndFirstLine() {
    feed("""

        ==============NVSMI LOG==============

        Timestamp                                 : Sat Nov 28 10:00:00 2026
        Driver Version                            : 550.90.05

        GPU 00000000:3B:00.0
            Active vGPUs                          : 0

        ==============NVSMI LOG==============

        Timestamp                                 : Sat Nov 28 10:00:05   2026
        GPU 00000000:3B:00.0
            Active vGPUs                          : 0
        """);
    assertThat(blocks).extracting(VgpuBlockSplitter.Block::timestamp)
        .containsExactly("Sat Nov 28 10:00:00 2026", "Sat Nov 28 10:00:05 2026");
    assertThat(blocks).extracting(VgpuBlockSplitter.Block::firstLine).containsExactly(2, 10);
    assertThat(blocks.get(1).text()).startsWith("==============NVSMI LOG").contains("GPU 00000000:3B:00.0");
  }

  @Test
  void withoutBannersATimestampStartsTheNextBlock() {
    feed("""
        Timestamp : Sat Nov 28 10:00:00 2026
        GPU 00000000:3B:00.0
            Active vGPUs : 0
        Timestamp : Sat Nov 28 10:00:05 2026
        Driver Version : 550.90.05
        GPU 00000000:3B:00.0
            Active vGPUs : 0
        """);
    assertThat(blocks).extracting(VgpuBlockSplitter.Block::timestamp)
        .containsExactly("Sat Nov 28 10:00:00 2026", "Sat Nov 28 10:00:05 2026");
    assertThat(blocks).extracting(VgpuBlockSplitter.Block::firstLine).containsExactly(1, 4);
  }

  @Test
  void withNeitherBannerNorTimestampAGpuSeenAgainStartsTheNextBlock() {
    feed("""
        GPU 00000000:3B:00.0
            Active vGPUs : 0
        GPU 00000000:86:00.0
            Active vGPUs : 1
            vGPU ID : 7
                VM Name : a
        GPU 00000000:3b:00.0
            Active vGPUs : 0
        GPU 00000000:86:00.0
            Active vGPUs : 0
        """);
    assertThat(blocks).hasSize(2);
    assertThat(blocks.get(0).text()).contains("vGPU ID : 7").contains("86:00.0");
    assertThat(blocks.get(1).firstLine()).isEqualTo(7);
    assertThat(blocks).extracting(VgpuBlockSplitter.Block::timestamp).containsOnlyNulls();
  }

  @Test
  void aBannerAloneIsNoBlockAndAQuietStreamCanBeCutWhereItStands() {
    splitter.line("==============NVSMI LOG==============");
    splitter.line("");
    assertThat(splitter.pending()).isFalse();
    splitter.finish();
    assertThat(blocks).isEmpty();
    splitter.line("GPU 00000000:3B:00.0");
    assertThat(splitter.pending()).isTrue();
    splitter.finish();
    assertThat(blocks).singleElement().satisfies(b -> assertThat(b.firstLine()).isEqualTo(3));
    assertThat(splitter.pending()).isFalse();
  }
}
