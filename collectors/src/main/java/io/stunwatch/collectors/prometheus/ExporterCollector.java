package io.stunwatch.collectors.prometheus;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stunwatch.collectors.worker.CollectorMetrics;
import io.stunwatch.collectors.worker.DeliveryConfig;
import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.collectors.worker.Inputs;
import io.stunwatch.collectors.worker.KafkaSampleSink;
import io.stunwatch.collectors.worker.MetricsServer;
import io.stunwatch.collectors.worker.PeriodicSource;
import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigSource;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.logging.LogLimiter;
import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.metrics.ScrapeFailure;
import io.stunwatch.model.ExporterGpuSample;
import io.stunwatch.model.topic.Topics;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code stunwatch collect prometheus}: scrapes dcgm-exporter and nvidia_gpu_exporter endpoints and publishes their
 * GPU readings to {@code stunwatch.exporter-gpu-samples}, or replays recorded pages.
 *
 * <p>Each target is scraped on its own schedule; a target that fails (a timeout, a refused connection, another
 * status than 200, a page with nothing the format allows) is counted by reason in
 * {@code stunwatch_collector_scrape_failures_total}, logged (ten lines a minute at most) and tried again at its next
 * interval, and never delays the others.
 */
public final class ExporterCollector implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ExporterCollector.class);
  /** A page larger than this is refused: an exporter's is tens of KB, and the collector's memory is bounded. */
  static final int MAX_PAGE_BYTES = 16 * 1024 * 1024;
  private static final String ACCEPT = "application/openmetrics-text;version=1.0.0;q=0.5,"
      + "text/plain;version=0.0.4;q=0.4,*/*;q=0.1";

  /** Every configuration key of this collector. */
  public static final List<ConfigKey<?>> KEYS = Stream.of(ExporterConfig.KEYS, DeliveryConfig.KEYS)
      .flatMap(List::stream).toList();

  /** All settings, validated together at start-up. */
  public record Settings(ExporterConfig exporter, DeliveryConfig delivery, KafkaClientConfig kafka) {

    public static Settings from(ConfigSource source) {
      return new Settings(ExporterConfig.from(source), DeliveryConfig.from(source), KafkaClientConfig.from(source));
    }
  }

  private final Settings settings;
  private final Clock clock;
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final KafkaSampleSink sink;
  private final Inputs inputs;
  private final ExporterMapping mapping;
  private final ExpositionParser parser = new ExpositionParser();
  private final LogLimiter failureLog;
  private final MetricsServer metricsServer;
  private HttpClient http;
  private ScheduledExecutorService executor;

  private ExporterCollector(Settings s, Clock clock, boolean live) throws IOException {
    this.settings = s;
    this.clock = clock;
    CollectorMetrics metrics = new CollectorMetrics(registry, clock);
    this.sink = KafkaSampleSink.create(s.delivery(), s.kafka().clientProperties(), metrics, clock);
    this.inputs = new Inputs(null, sink, metrics, clock);
    this.mapping = s.exporter().mapping();
    this.failureLog = new LogLimiter(10);
    this.metricsServer = live && s.exporter().metricsPort() > 0
        ? MetricsServer.start(registry, s.exporter().metricsHost(), s.exporter().metricsPort()) : null;
  }

  /** Starts scraping every target. */
  public static ExporterCollector start(Settings s, Clock clock) throws IOException {
    if (s.exporter().targets().isEmpty()) {
      throw new IllegalArgumentException("prometheus.targets: no exporter to scrape");
    }
    s.kafka().checkLogin(KafkaClientConfig.LOGIN_CHECK_TIMEOUT);
    ExporterCollector c = new ExporterCollector(s, clock, true);
    c.http = HttpClient.newBuilder().connectTimeout(s.exporter().timeout())
        .followRedirects(HttpClient.Redirect.NEVER).build();
    int threads = Math.min(4, s.exporter().targets().size());
    c.executor = Executors.newScheduledThreadPool(threads, r -> {
      Thread t = new Thread(r, "stunwatch-scrape");
      t.setDaemon(true);
      return t;
    });
    long interval = s.exporter().interval().toMillis();
    List<ScrapeTarget> targets = s.exporter().targets();
    for (int i = 0; i < targets.size(); i++) {
      ScrapeTarget t = targets.get(i);
      // spread over the interval, so that targets are not all scraped in the same instant
      c.executor.scheduleWithFixedDelay(() -> c.scrapeSafely(t), interval * i / targets.size(), interval,
          TimeUnit.MILLISECONDS);
    }
    LOG.info("Exporter collector started: {} targets every {}{}", targets.size(), s.exporter().interval(),
        c.metricsServer == null ? "" : ", metrics on port " + c.metricsServer.port());
    return c;
  }

  /**
   * Publishes recorded pages and waits for Kafka to acknowledge them (at most the outage bound): a file or a
   * directory of files, each a page in the text format or OpenMetrics, such as {@code promtool tsdb
   * dump-openmetrics} writes. A sample's own timestamp is its time; a sample without one takes the file's
   * modification time.
   *
   * @param recordings {@code [VM=]FILE|DIR}, where VM maps every page to the VM of that UUID or name
   */
  public static CollectorMetrics replay(Settings s, List<String> recordings, Clock clock) throws IOException {
    ExporterCollector c = new ExporterCollector(s, clock, false);
    try {
      for (String r : recordings) {
        int eq = r.indexOf('=');
        String vm = eq > 0 && !Files.exists(Path.of(r)) ? r.substring(0, eq) : null;
        Path path = Path.of(vm == null ? r : r.substring(eq + 1));
        List<Path> files = new ArrayList<>();
        if (Files.isDirectory(path)) {
          try (Stream<Path> list = Files.list(path)) {
            list.filter(Files::isRegularFile).sorted().forEach(files::add);
          }
        } else {
          files.add(path);
        }
        for (Path f : files) {
          LOG.info("Replaying {}", f);
          String text = Files.readString(f, StandardCharsets.UTF_8);
          c.accept(text, false, new ScrapeTarget(vm, f.toString()), Files.getLastModifiedTime(f).toInstant());
        }
      }
    } finally {
      c.sink.close(s.delivery().outageBound());
      c.close();
    }
    return c.inputs.metrics();
  }

  public CollectorMetrics metrics() {
    return inputs.metrics();
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  private void scrapeSafely(ScrapeTarget t) {
    try {
      scrape(t);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      // never let one target's surprise cancel its schedule
      fail(t, ScrapeFailure.MALFORMED, e.toString());
    }
  }

  /** One scrape of one target: the live path. */
  void scrape(ScrapeTarget t) throws InterruptedException {
    Instant at = clock.instant();
    HttpRequest req = HttpRequest.newBuilder(URI.create(t.source())).timeout(settings.exporter().timeout())
        .header("Accept", ACCEPT).GET().build();
    HttpResponse<InputStream> resp;
    try {
      resp = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
    } catch (HttpConnectTimeoutException e) {
      fail(t, ScrapeFailure.TIMEOUT, "no connection within " + settings.exporter().timeout());
      return;
    } catch (HttpTimeoutException e) {
      fail(t, ScrapeFailure.TIMEOUT, "no answer within " + settings.exporter().timeout());
      return;
    } catch (ConnectException e) {
      fail(t, ScrapeFailure.UNREACHABLE, "connection refused or unreachable");
      return;
    } catch (IOException e) {
      fail(t, ScrapeFailure.UNREACHABLE, e.toString());
      return;
    }
    byte[] body;
    try (InputStream in = resp.body()) {
      if (resp.statusCode() != 200) {
        fail(t, ScrapeFailure.HTTP_STATUS, "HTTP " + resp.statusCode());
        return;
      }
      body = in.readNBytes(MAX_PAGE_BYTES + 1);
    } catch (HttpTimeoutException e) {
      fail(t, ScrapeFailure.TIMEOUT, "the page did not arrive within " + settings.exporter().timeout());
      return;
    } catch (IOException e) {
      fail(t, ScrapeFailure.UNREACHABLE, "reading the page: " + e);
      return;
    }
    if (body.length > MAX_PAGE_BYTES) {
      fail(t, ScrapeFailure.MALFORMED, "page larger than " + MAX_PAGE_BYTES + " bytes");
      return;
    }
    boolean om = resp.headers().firstValue("Content-Type").orElse("").startsWith("application/openmetrics-text");
    if (!accept(new String(body, StandardCharsets.UTF_8), om, t, at)) {
      fail(t, ScrapeFailure.MALFORMED, "no sample the exposition format allows");
    }
  }

  /** Parses, maps and publishes one page; false when it held no valid sample but broken lines. */
  private boolean accept(String text, boolean om, ScrapeTarget t, Instant at) {
    ExpositionParser.Page page = parser.parse(text, t.redacted(), om);
    for (InputParseException e : page.errors()) {
      inputs.parseError(CollectorInput.EXPORTER, e);
    }
    List<ExporterGpuSample> gpus = mapping.map(page, t, at, e -> inputs.parseError(CollectorInput.EXPORTER, e));
    for (ExporterGpuSample s : gpus) {
      inputs.sample(CollectorInput.EXPORTER, Topics.EXPORTER_GPU_SAMPLES, s.key(), s, s.timestamp());
    }
    String noGpu = ExporterMapping.noGpuFamilies(page, gpus.size());
    if (noGpu != null) {
      fail(t, ScrapeFailure.NO_GPU_FAMILIES, noGpu);
    }
    return !(page.samples().isEmpty() && !page.errors().isEmpty());
  }

  private void fail(ScrapeTarget t, ScrapeFailure reason, String why) {
    inputs.metrics().scrapeFailure(reason);
    String more = failureLog.admit();
    if (more != null) {
      LOG.warn("scrape of {} failed ({}): {}{}", t.redacted(), reason.tag(), why, more);
    }
  }

  /** Stops scraping, then sends what is buffered (up to 10 s) and closes the producer. */
  @Override
  public void close() {
    PeriodicSource.stop(executor);
    sink.close(Duration.ofSeconds(10));
    if (metricsServer != null) {
      metricsServer.close();
    }
  }
}
