package io.stunwatch.launcher;

import io.stunwatch.api.ApiApplication;
import io.stunwatch.api.ApiConfig;
import io.stunwatch.api.notify.WebhookConfig;
import io.stunwatch.config.ConfigSource;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.processor.ProcessorConfig;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code stunwatch api}: a processor instance and the HTTP API over the stores of every instance. */
@Command(name = "api", mixinStandardHelpOptions = true,
    description = {"Serve migration history, stats, forecasts, alerts, the utilization audit, Grafana annotations "
        + "and /metrics over HTTP (bearer token: api.token, best given as STUNWATCH_API_TOKEN_FILE).",
        "Runs a processor instance too: its stores answer the queries, and instances with the same "
            + "process.application-id share the partitions and forward queries to one another."})
final class ApiCommand implements Callable<Integer> {

  private final LaunchContext ctx;

  @Mixin
  ConfigOption config;

  @Mixin
  KafkaOption kafkaOption;

  ApiCommand(LaunchContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() throws Exception {
    ConfigSource source = kafkaOption.apply(config.load(ctx));
    ApiConfig api = ApiConfig.from(source);
    WebhookConfig webhook = WebhookConfig.from(source);
    ProcessorConfig processor = ProcessorConfig.from(source);
    KafkaClientConfig kafka = KafkaClientConfig.from(source);
    kafka.checkLogin(KafkaClientConfig.LOGIN_CHECK_TIMEOUT);
    ApiApplication app = ApiApplication.start(api, processor, kafka, ctx.clock(), webhook);
    ctx.out().println("Stunwatch API listening on " + (api.tlsCert() != null ? "https" : "http") + "://"
        + api.advertisedHost() + ":" + app.port() + " (processor " + processor.applicationId() + "); Ctrl-C to stop.");
    ctx.out().flush();
    UntilStopped.await(app, Duration.ofSeconds(40));
    return ExitCodes.OK;
  }
}
