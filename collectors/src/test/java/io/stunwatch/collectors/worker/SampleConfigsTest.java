package io.stunwatch.collectors.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigSource;
import io.stunwatch.config.KafkaClientConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every input package has a README and a sample configuration, and every sample configuration is valid. */
class SampleConfigsTest {

  private static final Path INPUTS = Path.of("src/main/java/io/stunwatch/collectors");

  @Test
  void everyInputHasAReadmeAndAValidSampleConfig() throws Exception {
    List<ConfigKey<?>> known = new ArrayList<>(WorkerCollector.KEYS);
    known.addAll(KafkaClientConfig.KEYS);
    List<String> inputs;
    try (Stream<Path> dirs = Files.list(INPUTS)) {
      inputs = dirs.filter(Files::isDirectory).map(d -> d.getFileName().toString())
          .filter(n -> !n.equals("worker")).sorted().toList();
    }
    assertThat(inputs).containsExactly("hostvgpu", "nvidiasmi", "rdma", "throughput");
    for (String input : inputs) {
      Path dir = INPUTS.resolve(input);
      assertThat(dir.resolve("README.md")).as(input).isRegularFile();
      Path sample = dir.resolve("sample.properties");
      ConfigSource source = ConfigSource.load(Optional.of(sample), Map.of(), known);
      WorkerCollector.Settings s = WorkerCollector.Settings.from(source); // throws, listing problems, if invalid
      assertThat(s).as(input).isNotNull();
    }
  }
}
