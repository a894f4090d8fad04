package io.stunwatch.bench;

import io.stunwatch.model.topic.Topics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** What a run leaves on disk: the broker's changelogs and input topics, a state directory. */
final class BrokerDisk {

  private BrokerDisk() {
  }

  /**
   * The bytes of every changelog in the broker's log directories, by store: a partition's directory is
   * {@code <application id>-<store>-changelog-<partition>}; the stores are named without {@code applicationId}.
   */
  static Map<String, Long> changelogBytes(Path brokerDir, String applicationId) throws IOException {
    Map<String, Long> out = new TreeMap<>();
    try (Stream<Path> s = Files.walk(brokerDir)) {
      s.filter(p -> p.getParent() != null && p.getParent().getFileName().toString().contains("-changelog-")
          && p.getFileName().toString().endsWith(".log")).forEach(p -> {
            String dirName = p.getParent().getFileName().toString();
            String store = dirName.substring(0, dirName.lastIndexOf("-changelog-"));
            store = store.startsWith(applicationId + "-") ? store.substring(applicationId.length() + 1) : store;
            out.merge(store, sizeOf(p), Long::sum);
          });
    }
    return out;
  }

  /** The bytes of every partition of the sample topics (the fleet's input) in the broker's log directories. */
  static long inputBytes(Path brokerDir) throws IOException {
    List<String> inputs = List.of(Topics.GPU_SAMPLES.name(), Topics.RDMA_SAMPLES.name(),
        Topics.THROUGHPUT_SAMPLES.name());
    try (Stream<Path> s = Files.walk(brokerDir)) {
      return s.filter(p -> p.getParent() != null && inputs.stream().anyMatch(t -> p.getParent().getFileName()
          .toString().startsWith(t + "-")) && p.getFileName().toString().endsWith(".log"))
          .mapToLong(BrokerDisk::sizeOf).sum();
    }
  }

  static long size(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).mapToLong(BrokerDisk::sizeOf).sum();
    }
  }

  private static long sizeOf(Path p) {
    try {
      return Files.size(p);
    } catch (IOException e) {
      return 0; // a segment deleted while walking
    }
  }
}
