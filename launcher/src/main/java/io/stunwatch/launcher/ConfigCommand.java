package io.stunwatch.launcher;

import io.stunwatch.broker.BrokerAcls;
import io.stunwatch.broker.BrokerConfig;
import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigKeys;
import io.stunwatch.config.ConfigReader;
import io.stunwatch.config.ConfigSource;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.model.topic.TopicProvisioner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code stunwatch config keys|check|topics}: the configuration reference, a validator, topic creation. */
@Command(name = "config", mixinStandardHelpOptions = true,
    description = "List the configuration keys, or check a configuration.",
    subcommands = {ConfigCommand.Keys.class, ConfigCommand.Check.class, ConfigCommand.Topics.class,
        ConfigCommand.Access.class})
final class ConfigCommand implements Runnable {

  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "missing subcommand: keys, check, topics or access");
  }

  /** {@code stunwatch config keys [--markdown]}. */
  @Command(name = "keys", mixinStandardHelpOptions = true,
      description = "List every configuration key with its type, default and environment variable.")
  static final class Keys implements Callable<Integer> {
    private final LaunchContext ctx;

    @Option(names = "--markdown", description = "Print the Markdown reference (docs/configuration.md).")
    boolean markdown;

    Keys(LaunchContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      ctx.out().print(markdown ? markdown() : plain());
      ctx.out().flush();
      return ExitCodes.OK;
    }
  }

  /** {@code stunwatch config check}. */
  @Command(name = "check", mixinStandardHelpOptions = true,
      description = "Validate the configuration (file and environment) and print each effective value with its "
          + "origin. Secrets are masked. Exits 2 when anything is invalid.")
  static final class Check implements Callable<Integer> {
    private final LaunchContext ctx;

    @Mixin
    ConfigOption config;

    Check(LaunchContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      ConfigSource source = config.load(ctx);
      ConfigReader reader = source.reader();
      ConfigCatalog.ALL.forEach(reader::get);
      reader.done();
      // Cross-field rules live in the typed records: build each one.
      KafkaClientConfig.from(source);
      BrokerConfig.from(source);
      Map<String, String> effective = reader.effective();
      for (ConfigKey<?> key : ConfigCatalog.ALL) {
        ctx.out().println(key.name() + " = " + effective.get(key.name()));
      }
      ctx.out().println("configuration is valid");
      ctx.out().flush();
      return ExitCodes.OK;
    }
  }

  /** {@code stunwatch config topics}: creates the missing catalog topics on the cluster. */
  @Command(name = "topics", mixinStandardHelpOptions = true,
      description = {"Create the Stunwatch topics that do not exist yet on kafka.bootstrap-servers, each with its "
          + "retention or compaction (docs/events.md). Existing topics are left as they are. For a real cluster; "
          + "the embedded broker creates them itself.", "Exits 1 when the cluster refuses or does not answer."})
  static final class Topics implements Callable<Integer> {
    private final LaunchContext ctx;

    @Mixin
    ConfigOption config;

    @Option(names = "--partitions", defaultValue = "6", description = "Partitions of each new topic: the most "
        + "processor threads that can share the work (default ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--replication-factor", defaultValue = "3", description = "Replicas of each new topic "
        + "(default ${DEFAULT-VALUE}; 1 for a single broker).")
    short replicationFactor;

    Topics(LaunchContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      if (partitions < 1 || replicationFactor < 1) {
        ctx.err().println("--partitions and --replication-factor must be at least 1");
        return ExitCodes.USAGE;
      }
      KafkaClientConfig kafka = KafkaClientConfig.from(config.load(ctx));
      kafka.checkLogin(KafkaClientConfig.LOGIN_CHECK_TIMEOUT);
      try (Admin admin = Admin.create(
          kafka.clientProperties())) {
        List<String> created = TopicProvisioner.ensure(admin,
            io.stunwatch.model.topic.Topics.ALL, partitions, replicationFactor, Duration.ofSeconds(60));
        ctx.out().println(created.isEmpty() ? "every Stunwatch topic exists already"
            : "created " + created.size() + " topics: " + String.join(", ", created));
        ctx.out().flush();
        return ExitCodes.OK;
      } catch (IllegalStateException e) {
        ctx.err().println("stunwatch config topics: " + e.getMessage());
        return 1;
      }
    }
  }

  /** {@code stunwatch config access --users-file FILE}: SCRAM logins and their ACLs on the site's Kafka. */
  @Command(name = "access", mixinStandardHelpOptions = true,
      description = {"Create or update Kafka logins (SCRAM-SHA-512 and -256) and the ACLs of their roles, through "
          + "a login allowed to (a super user, or the brokers' internal listener).",
          "The users file has one '<user> <role> <password-file>' a line, the password file relative to it; roles: "
              + "worker (writes the sample topics only), vcenter (the vCenter topics), hosts (collect hosts: writes the "
              + "host vGPU samples, reads the host inventory), service (processor, API, tail). Running it again "
              + "changes nothing."})
  static final class Access implements Callable<Integer> {
    private final LaunchContext ctx;

    @Mixin
    ConfigOption config;

    @Option(names = "--users-file", required = true, paramLabel = "FILE", description = "The logins to create.")
    Path usersFile;

    Access(LaunchContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      KafkaClientConfig kafka = KafkaClientConfig.from(config.load(ctx));
      kafka.checkLogin(KafkaClientConfig.LOGIN_CHECK_TIMEOUT);
      ConfigReader r = ConfigSource.of(Map.of()).reader();
      List<BrokerConfig.User> users = BrokerConfig.readUsers(r, usersFile);
      r.done();
      try (Admin admin = Admin.create(
          kafka.clientProperties())) {
        int acls = BrokerAcls.apply(admin, users, Duration.ofSeconds(60));
        ctx.out().println(users.size() + " logins and " + acls + " ACLs in place: " + String.join(", ",
            users.stream().map(u -> u.name() + " (" + u.role().name().toLowerCase(Locale.ROOT) + ")")
                .toList()));
        ctx.out().flush();
        return ExitCodes.OK;
      }
    }
  }

  /** The Markdown reference of every key: the content of {@code docs/configuration.md}. */
  static String markdown() {
    StringBuilder b = new StringBuilder();
    b.append("# Configuration reference\n\n")
        .append("Generated by `./stunwatch config keys --markdown > docs/configuration.md`; a test fails when this ")
        .append("file and the code disagree.\n\n")
        .append("Each key is read, from lowest to highest precedence, from its default, the config file ")
        .append("(`--config FILE` or `$STUNWATCH_CONFIG`, one `key=value` per line), the environment variable ")
        .append("shown, and a command-line flag where the command has one. `<VARIABLE>_FILE` names a file whose ")
        .append("content is the value: use it for secrets. Values are validated once at start-up; a bad value ")
        .append("stops the command with the key, the value, its origin and what is allowed. ")
        .append("`stunwatch config check` validates a configuration and shows where each value comes from.\n\n")
        .append("| key | environment variable | type | default | allowed | description |\n")
        .append("|---|---|---|---|---|---|\n");
    for (ConfigKey<?> k : ConfigCatalog.ALL) {
      b.append("| `").append(k.name()).append("` | `").append(k.envName()).append("` | ").append(k.type())
          .append(" | ").append(defaultOf(k)).append(" | ").append(k.allowed()).append(" | ")
          .append(k.doc().replace("|", "\\|")).append(" |\n");
    }
    return b.append(SASL_SSL_EXAMPLE).toString();
  }

  /** The worked example of a secured Kafka; {@code ConfigurationDocTest} reads its config file back. */
  static final String SASL_SSL_EXAMPLE = """

      ## Example: a Kafka cluster with SASL_SSL

      The site's brokers serve SASL_SSL with SCRAM-SHA-512, their certificates signed by the site's CA. Each role has
      its own login (`stunwatch config access --users-file FILE` creates them and their ACLs, run once with an admin
      login): a GPU VM's worker writes the sample topics and nothing else.

      `/etc/stunwatch/worker.conf` on a GPU VM:

      ```properties
      kafka.bootstrap-servers=kafka-1.example.com:9094,kafka-2.example.com:9094
      kafka.security.protocol=SASL_SSL
      kafka.sasl.mechanism=SCRAM-SHA-512
      kafka.sasl.username=worker
      kafka.ssl.ca-file=/etc/stunwatch/kafka-ca.pem
      kafka.client.client.dns.lookup=use_all_dns_ips
      ```

      The password is a file, never a value of the config file: `STUNWATCH_KAFKA_SASL_PASSWORD_FILE=/etc/stunwatch/kafka-password`
      (the systemd unit hands it over as a credential). For mutual TLS instead of a password, set
      `kafka.security.protocol=SSL` with `kafka.ssl.cert-file` and `kafka.ssl.key-file`. Check a configuration
      without starting anything with `stunwatch config check --config /etc/stunwatch/worker.conf`; at start-up, a
      refused login or an untrusted broker certificate stops the command with the reason.
      """;

  private static String plain() {
    StringBuilder b = new StringBuilder();
    for (ConfigKey<?> k : ConfigCatalog.ALL) {
      b.append(k.name()).append(" (").append(k.envName()).append(", ").append(k.type()).append(", default ")
          .append(defaultOf(k).replace("`", "")).append(")\n    ").append(k.doc()).append('\n');
    }
    return b.toString();
  }

  private static String defaultOf(ConfigKey<?> k) {
    Object d = k.defaultValue();
    if (d == null) {
      return k.required() ? "required" : "unset";
    }
    String s = d instanceof Duration dur ? ConfigKeys.format(dur) : d instanceof Enum<?> e
        ? e.name().toLowerCase(Locale.ROOT) : String.valueOf(d);
    return "`" + s + "`";
  }
}
