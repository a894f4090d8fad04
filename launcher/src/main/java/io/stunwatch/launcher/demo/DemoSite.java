package io.stunwatch.launcher.demo;

import io.stunwatch.api.ApiApplication;
import io.stunwatch.api.ApiConfig;
import io.stunwatch.broker.BrokerConfig;
import io.stunwatch.broker.EmbeddedKafkaBroker;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.processor.GuardConfig;
import io.stunwatch.processor.ProcessorConfig;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo's site on this machine: an embedded single-node KRaft broker with the Stunwatch topics, and one
 * processor instance serving the API (what {@code stunwatch api} runs), all under one data directory.
 *
 * <p>The processor uses static group membership, so a restarted instance takes its partitions back at once instead
 * of waiting a session timeout for its old member to expire.
 */
public final class DemoSite implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(DemoSite.class);
  /** The demo's processor application id. */
  public static final String APPLICATION_ID = "stunwatch-demo";

  private final EmbeddedKafkaBroker broker;
  private final ApiConfig apiConfig;
  private final ProcessorConfig processorConfig;
  private final KafkaClientConfig kafka;
  private final Clock clock;
  private volatile ApiApplication api;

  private DemoSite(EmbeddedKafkaBroker broker, ApiConfig apiConfig, ProcessorConfig processorConfig,
      KafkaClientConfig kafka, Clock clock) {
    this.broker = broker;
    this.apiConfig = apiConfig;
    this.processorConfig = processorConfig;
    this.kafka = kafka;
    this.clock = clock;
  }

  /**
   * Starts the broker, then the processor and API.
   *
   * @param dataDir  the broker's log and the processor's state go under it
   * @param apiPort  the API's port, 0 for any free one (kept across {@link #restartApi})
   * @param token    the API's bearer token
   * @param clock    the processor's and API's clock (the simulated one)
   */
  public static DemoSite start(Path dataDir, int apiPort, String token, Clock clock) throws Exception {
    EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(new BrokerConfig(dataDir.resolve("kafka"), "127.0.0.1",
        0, 0, 3, true));
    try {
      KafkaClientConfig kafka = new KafkaClientConfig(broker.bootstrapServers());
      // with the DRS guard's decisions, which the demo's vCenter applies (DemoGuard)
      ProcessorConfig processor = ProcessorConfig.defaults().withIdentity(APPLICATION_ID, dataDir.resolve("state"))
          .withInstanceId("demo-1").withGuard(GuardConfig.OFF.withEnabled(true));
      ApiConfig api = new ApiConfig("127.0.0.1", apiPort, "127.0.0.1", token, true, 1000, Duration.ofDays(92), null,
          null);
      DemoSite site = new DemoSite(broker, api, processor, kafka, clock);
      site.api = ApiApplication.start(api, processor, kafka, clock);
      return site;
    } catch (Exception | Error e) {
      broker.close();
      throw e;
    }
  }

  public String bootstrapServers() {
    return broker.bootstrapServers();
  }

  /** The API's port. */
  public int apiPort() {
    return api.port();
  }

  /** The API's base URL. */
  public String apiUrl() {
    return "http://" + apiConfig.advertisedHost() + ":" + apiPort();
  }

  /**
   * Stops the processor and the API, and starts them again on the same port and state directory: what a deploy or
   * a crash-restart does. Returns once the new instance listens; its stores answer once Streams is running again.
   */
  public void restartApi() throws Exception {
    int port = apiPort();
    LOG.info("Restarting the processor and the API on port {}", port);
    api.close();
    ApiConfig same = new ApiConfig(apiConfig.host(), port, apiConfig.advertisedHost(), apiConfig.token(),
        apiConfig.openHealth(), apiConfig.maxPageSize(), apiConfig.maxRange(), null, null);
    api = ApiApplication.start(same, processorConfig, kafka, clock);
  }

  /** Closes the processor and API, then the broker. */
  @Override
  public void close() throws Exception {
    try {
      api.close();
    } finally {
      broker.close();
    }
  }
}
