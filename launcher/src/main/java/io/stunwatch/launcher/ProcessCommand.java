package io.stunwatch.launcher;

import io.stunwatch.config.ConfigSource;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.StreamsProcessor;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code stunwatch process}: the Kafka Streams topology. */
@Command(name = "process", mixinStandardHelpOptions = true,
    description = {"Run the stream processor (Kafka Streams, exactly once): migrations assembled from vCenter events, "
        + "per-VM load, migration-under-load alerts. Runs until stopped; instances with the same "
        + "process.application-id share the work.",
        "It serves no queries: where the API is used, run `stunwatch api` instances instead (each is a processor "
            + "too), never both under one process.application-id."})
final class ProcessCommand implements Callable<Integer> {

  private final LaunchContext ctx;

  @Mixin
  ConfigOption config;

  @Mixin
  KafkaOption kafkaOption;

  ProcessCommand(LaunchContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() throws Exception {
    ConfigSource source = kafkaOption.apply(config.load(ctx));
    ProcessorConfig processor = ProcessorConfig.from(source);
    KafkaClientConfig kafka = KafkaClientConfig.from(source);
    kafka.checkLogin(KafkaClientConfig.LOGIN_CHECK_TIMEOUT);
    StreamsProcessor p = StreamsProcessor.start(processor, kafka, ctx.clock());
    ctx.out().println("Stream processor " + processor.applicationId() + " started; it serves no queries, so run no "
        + "`stunwatch api` under the same application id. Ctrl-C to stop.");
    ctx.out().flush();
    UntilStopped.await(p, Duration.ofSeconds(40));
    return ExitCodes.OK;
  }
}
