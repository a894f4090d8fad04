package io.stunwatch.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.junit.jupiter.api.Test;

class WaitBreakdownTest {

  private static final String APP = "bench-topology-1-0f8e5a52-3c0e-4f7b-9a55-1d2e3f4a5b6c";
  private static final String FETCH_GROUP = "consumer-fetch-manager-metrics";

  @Test
  void streamsClientIdsAreToldApartBySuffix() {
    assertThat(WaitBreakdown.clientKind(APP + "-StreamThread-1-consumer")).isEqualTo("main consumer");
    assertThat(WaitBreakdown.clientKind(APP + "-StreamThread-2-restore-consumer")).isEqualTo("restore consumer");
    assertThat(WaitBreakdown.clientKind(APP + "-global-consumer")).isEqualTo("global consumer");
    assertThat(WaitBreakdown.clientKind(APP + "-StreamThread-1-producer")).isEqualTo("producer");
    assertThat(WaitBreakdown.clientKind(APP + "-admin")).isEqualTo("admin");
  }

  @Test
  void anUnknownOrMissingClientIdIsOther() {
    assertThat(WaitBreakdown.clientKind(null)).isEqualTo("other");
    assertThat(WaitBreakdown.clientKind(APP + "-StreamThread-1-something")).isEqualTo("other");
  }

  @Test
  void fetchRequestsAreSummedByKindOfClientBetweenSnapshotsLeavingOutPerTopicCounts() {
    WaitBreakdown before = WaitBreakdown.of(fetches(10, 20, 4, 1000), 0);
    WaitBreakdown after = WaitBreakdown.of(fetches(16, 27, 5, 5000), 1_000_000_000L);

    String lines = after.since(before);

    // 6 + 7 from the two stream threads' main consumers; the per-topic count (+4000) is not a client's own
    assertThat(lines).contains("fetch requests (by client): main consumer 13, global consumer 1");
  }

  private static Map<MetricName, Metric> fetches(double thread1, double thread2, double global, double perTopic) {
    Map<MetricName, Metric> m = new HashMap<>();
    put(m, "fetch-total", FETCH_GROUP, Map.of("client-id", APP + "-StreamThread-1-consumer"), thread1);
    put(m, "fetch-total", FETCH_GROUP, Map.of("client-id", APP + "-StreamThread-2-consumer"), thread2);
    put(m, "fetch-total", FETCH_GROUP, Map.of("client-id", APP + "-global-consumer"), global);
    put(m, "fetch-total", FETCH_GROUP, Map.of("client-id", APP + "-StreamThread-1-consumer", "topic", "t"),
        perTopic);
    return m;
  }

  private static void put(Map<MetricName, Metric> m, String name, String group, Map<String, String> tags,
      double value) {
    MetricName n = new MetricName(name, group, "", tags);
    m.put(n, new Metric() {
      @Override
      public MetricName metricName() {
        return n;
      }

      @Override
      public Object metricValue() {
        return value;
      }
    });
  }
}
