package io.stunwatch.processor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.processor.processors.MigrationProcessor;
import io.stunwatch.processor.support.StoreRegistry;
import io.stunwatch.processor.processors.VmReadingsProcessor;
import io.stunwatch.processor.readmodel.StoreNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.kafka.streams.TopologyDescription;
import org.junit.jupiter.api.Test;

/**
 * Rules of the topology's wiring, checked on the built topology and on the processor's sources: each store has one
 * writer, which declares it; the topology adds no store by name; no unchecked cast carries a stream from one type to
 * another.
 */
class TopologyRulesTest {

  private static final Path SOURCES = Path.of("src/main/java/io/stunwatch/processor");

  private static ProcessorConfig everything() {
    return ProcessorConfig.defaults().withInventoryRefresh(Duration.ZERO)
        .withGuard(GuardConfig.OFF.withEnabled(true));
  }

  @Test
  void eachStoreHasOneWriter() {
    StoreRegistry stores = new StoreRegistry();
    TopologyDescription d = StunwatchTopology.build(everything(), StunwatchTopologyTest.CLOCK, stores).describe();
    Set<String> connected = new TreeSet<>();
    for (TopologyDescription.Subtopology s : d.subtopologies()) {
      for (TopologyDescription.Node n : s.nodes()) {
        if (n instanceof TopologyDescription.Processor p) {
          connected.addAll(p.stores());
        }
      }
    }
    assertThat(connected).as("every store a processor is connected to has its one declared writer")
        .isNotEmpty().allSatisfy(store -> assertThat(stores.writers()).containsKey(store));
    assertThat(stores.writers()).as("each writer is a processor of the topology")
        .allSatisfy((store, writer) -> assertThat(d.subtopologies().stream().flatMap(s -> s.nodes().stream())
            .map(TopologyDescription.Node::name)).contains(writer));
    assertThat(stores.writers()).containsEntry(StoreNames.IMPACTS, MigrationProcessor.NAME)
        .containsEntry(StoreNames.ALERTS, MigrationProcessor.NAME)
        .containsEntry(StoreNames.VM_STUNS, MigrationProcessor.NAME)
        .containsEntry(StoreNames.VM_SAMPLES, VmReadingsProcessor.NAME);
  }

  @Test
  void aSecondWriterOfAStoreIsRefused() {
    StoreRegistry stores = new StoreRegistry();
    stores.own(MigrationProcessor.NAME, MigrationProcessor.stores());
    assertThatThrownBy(() -> stores.own("another", List.of(MigrationProcessor.stores().get(0))))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("two writers");
    assertThatThrownBy(() -> stores.supplier("reader", () -> null, "no-such-store"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("no processor declared");
  }

  @Test
  void theTopologyAddsNoStoreByName() throws IOException {
    String wiring = Files.readString(SOURCES.resolve("StunwatchTopology.java"));
    assertThat(wiring).doesNotContain("addStateStore").doesNotContain("Stores.");
  }

  @Test
  void noUncheckedCastInTheTopology() throws IOException {
    List<Path> wiring;
    try (Stream<Path> files = Files.walk(SOURCES)) {
      wiring = files.filter(p -> p.toString().endsWith(".java"))
          .filter(p -> !p.toString().contains("/state/")) // the stores' own internals, apart from the topology
          .toList();
    }
    assertThat(wiring).hasSizeGreaterThan(20);
    for (Path p : wiring) {
      String source = Files.readString(p);
      assertThat(source).as(p.toString()).doesNotContain("\"unchecked\"").doesNotContain("\"rawtypes\"")
          .doesNotContainPattern("\\(KStream<[^>]*>\\)");
    }
  }
}
