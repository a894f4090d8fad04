package io.stunwatch.collectors.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.metrics.DropReason;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The collector's /metrics page, on loopback: every series exists from the start, counts show as they happen. */
class MetricsServerTest {

  @Test
  void metricsPageShowsEveryInputsCountersWithTheirTags() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    CollectorMetrics m = new CollectorMetrics(registry, Clock.systemUTC());
    m.read(CollectorInput.NVIDIA_SMI, Instant.now());
    m.parseError(CollectorInput.RDMA);
    m.dropped(CollectorInput.THROUGHPUT, DropReason.BUFFER_FULL);
    try (MetricsServer server = MetricsServer.start(registry, "localhost", 0)) {
      HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://localhost:" + server.port() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body())
          .contains("stunwatch_collector_samples_read_total{input=\"nvidia-smi\"} 1.0")
          .contains("stunwatch_collector_samples_read_total{input=\"host-vgpu\"} 0.0")
          .contains("stunwatch_collector_parse_errors_total{input=\"rdma\"} 1.0")
          .contains("stunwatch_collector_samples_dropped_total{input=\"throughput\",reason=\"buffer-full\"} 1.0")
          .contains("stunwatch_collector_child_restarts_total{input=\"nvidia-smi\"} 0.0")
          .contains("stunwatch_collector_last_sample_age_seconds{input=\"nvidia-smi\"}");
    }
  }
}
