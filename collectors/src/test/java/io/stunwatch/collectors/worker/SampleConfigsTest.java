package io.stunwatch.collectors.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.collectors.hosts.HostsConfig;
import io.stunwatch.collectors.prometheus.ExporterConfig;
import io.stunwatch.collectors.vcenter.VcenterConfig;
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
    known.addAll(VcenterConfig.KEYS);
    known.addAll(ExporterConfig.KEYS);
    known.addAll(HostsConfig.KEYS);
    List<String> inputs;
    try (Stream<Path> dirs = Files.list(INPUTS)) {
      inputs = dirs.filter(Files::isDirectory).map(d -> d.getFileName().toString())
          .filter(n -> !n.equals("worker")).sorted().toList();
    }
    assertThat(inputs).containsExactly("hosts", "hostvgpu", "nvidiasmi", "prometheus", "rdma", "throughput",
        "vcenter", "vmkernel");
    for (String input : inputs) {
      Path dir = INPUTS.resolve(input);
      assertThat(dir.resolve("README.md")).as(input).isRegularFile();
      Path sample = dir.resolve("sample.properties");
      // the password is never in a config file: the operator's environment gives it
      ConfigSource source = ConfigSource.load(Optional.of(sample),
          Map.of("STUNWATCH_VCENTER_PASSWORD", "from-the-environment"), known);
      // each throws, listing every problem, when the sample is invalid
      assertThat(WorkerCollector.Settings.from(source)).as(input).isNotNull();
      assertThat(VcenterConfig.from(source, input.equals("vcenter"))).as(input).isNotNull();
      assertThat(ExporterConfig.from(source)).as(input).isNotNull();
      if (input.equals("hosts") || input.equals("vmkernel")) {
        assertThat(HostsConfig.from(source)).as(input).isNotNull();
      }
    }
  }
}
