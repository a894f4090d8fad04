package io.stunwatch.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;

/**
 * How every component reaches Kafka: the brokers, how it authenticates, and what it trusts. The same keys serve
 * the workers, the vCenter collector, the processor, the API, {@code tail} and the benchmarks.
 *
 * <p>Secrets (the SASL password, keystore passwords, a PEM private key) are read from files: give them as
 * {@code STUNWATCH_KAFKA_SASL_PASSWORD_FILE} and the like. The JAAS entry is built here and never printed:
 * {@link #toString()} and {@code stunwatch config show} mask it.
 *
 * <p>Anything else goes through {@code kafka.client.<property>}, checked once at start-up against the Kafka clients'
 * own definitions: an unknown property or a bad value fails with the key and why.
 *
 * @param bootstrapServers comma-separated {@code host:port} list
 * @param security         the security properties built from the keys below, and the pass-through ones
 */
public record KafkaClientConfig(String bootstrapServers, Map<String, Object> security) {

  /** Kafka's security protocols. */
  public enum Protocol { PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL }

  /** The SASL mechanisms Stunwatch builds a JAAS entry for. */
  public enum Mechanism {
    SCRAM_SHA_512("SCRAM-SHA-512", "org.apache.kafka.common.security.scram.ScramLoginModule"),
    SCRAM_SHA_256("SCRAM-SHA-256", "org.apache.kafka.common.security.scram.ScramLoginModule"),
    PLAIN("PLAIN", "org.apache.kafka.common.security.plain.PlainLoginModule"),
    OAUTHBEARER("OAUTHBEARER", "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule");

    final String kafkaName;
    final String loginModule;

    Mechanism(String kafkaName, String loginModule) {
      this.kafkaName = kafkaName;
      this.loginModule = loginModule;
    }

    /** Kafka's name, as {@code sasl.mechanism} takes it. */
    public String kafkaName() {
      return kafkaName;
    }

    static Mechanism parse(String raw) {
      for (Mechanism m : values()) {
        if (m.kafkaName.equalsIgnoreCase(raw) || m.name().equalsIgnoreCase(raw)) {
          return m;
        }
      }
      throw new IllegalArgumentException("must be one of SCRAM-SHA-512, SCRAM-SHA-256, PLAIN, OAUTHBEARER");
    }
  }

  public static final ConfigKey<String> BOOTSTRAP_SERVERS = ConfigKeys.custom("kafka.bootstrap-servers",
      "host:port list", "a comma-separated list of host:port", "localhost:9092",
      "Kafka brokers the collectors, processor and API connect to.", KafkaClientConfig::parseServers);
  public static final ConfigKey<Protocol> SECURITY_PROTOCOL = ConfigKeys.enumeration("kafka.security.protocol",
      Protocol.class, Protocol.PLAINTEXT, "How to reach the brokers: PLAINTEXT, SSL (TLS), SASL_PLAINTEXT or "
          + "SASL_SSL (a login over TLS, what a site whose workers share a network with tenants needs).");
  public static final ConfigKey<Path> SSL_CA_FILE = ConfigKeys.path("kafka.ssl.ca-file", null,
      "PEM file of the CA certificates that sign the brokers' certificates (TLS). Default: the JVM's CAs.");
  public static final ConfigKey<Path> SSL_TRUSTSTORE = ConfigKeys.path("kafka.ssl.truststore", null,
      "A JKS or PKCS12 truststore instead of kafka.ssl.ca-file.");
  public static final ConfigKey<String> SSL_TRUSTSTORE_PASSWORD = ConfigKeys.secret("kafka.ssl.truststore-password",
      "Password of kafka.ssl.truststore; give it as a file (STUNWATCH_KAFKA_SSL_TRUSTSTORE_PASSWORD_FILE).");
  public static final ConfigKey<Path> SSL_CERT_FILE = ConfigKeys.path("kafka.ssl.cert-file", null,
      "PEM certificate chain this client presents (mutual TLS), with kafka.ssl.key-file.");
  public static final ConfigKey<Path> SSL_KEY_FILE = ConfigKeys.path("kafka.ssl.key-file", null,
      "PEM private key (PKCS#8) of kafka.ssl.cert-file; readable by the service's user only.");
  public static final ConfigKey<String> SSL_KEY_PASSWORD = ConfigKeys.secret("kafka.ssl.key-password",
      "Password of an encrypted kafka.ssl.key-file or of the key in kafka.ssl.keystore, as a file.");
  public static final ConfigKey<Path> SSL_KEYSTORE = ConfigKeys.path("kafka.ssl.keystore", null,
      "A JKS or PKCS12 keystore with this client's certificate and key instead of the PEM files.");
  public static final ConfigKey<String> SSL_KEYSTORE_PASSWORD = ConfigKeys.secret("kafka.ssl.keystore-password",
      "Password of kafka.ssl.keystore, as a file (STUNWATCH_KAFKA_SSL_KEYSTORE_PASSWORD_FILE).");
  public static final ConfigKey<Mechanism> SASL_MECHANISM = ConfigKeys.custom("kafka.sasl.mechanism",
      "SASL mechanism", "SCRAM-SHA-512, SCRAM-SHA-256, PLAIN or OAUTHBEARER", null,
      "How a SASL_* protocol logs in. OAUTHBEARER takes the client id as kafka.sasl.username, its secret as the "
          + "password, and the token endpoint as kafka.client.sasl.oauthbearer.token.endpoint.url.",
      Mechanism::parse);
  public static final ConfigKey<String> SASL_USERNAME = ConfigKeys.optionalString("kafka.sasl.username",
      "The SASL user (the principal the brokers' ACLs name).");
  public static final ConfigKey<String> SASL_PASSWORD = ConfigKeys.secret("kafka.sasl.password",
      "Its password; give it as a file (STUNWATCH_KAFKA_SASL_PASSWORD_FILE), never in the config file.");
  public static final ConfigKey<String> CLIENT = ConfigKeys.family("kafka.client",
      "Any other Kafka client property, passed to every producer, consumer and admin client "
          + "(kafka.client.client.dns.lookup=use_all_dns_ips, or STUNWATCH_KAFKA_CLIENT_CLIENT_DNS_LOOKUP). Checked "
          + "at start-up against the clients' own definitions; the properties the keys above set are refused.");

  public static final List<ConfigKey<?>> KEYS = List.of(BOOTSTRAP_SERVERS, SECURITY_PROTOCOL, SSL_CA_FILE,
      SSL_TRUSTSTORE, SSL_TRUSTSTORE_PASSWORD, SSL_CERT_FILE, SSL_KEY_FILE, SSL_KEY_PASSWORD, SSL_KEYSTORE,
      SSL_KEYSTORE_PASSWORD, SASL_MECHANISM, SASL_USERNAME, SASL_PASSWORD, CLIENT);

  /** How long {@link #checkLogin} waits for the brokers before leaving the rest to the clients' retries. */
  public static final Duration LOGIN_CHECK_TIMEOUT = Duration.ofSeconds(15);

  /** Properties the typed keys own: set through kafka.client.*, they would bypass the checks above. */
  private static final Set<String> OWNED = Set.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
      CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, SaslConfigs.SASL_MECHANISM, SaslConfigs.SASL_JAAS_CONFIG,
      SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG,
      SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, SslConfigs.SSL_TRUSTSTORE_CERTIFICATES_CONFIG,
      SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG,
      SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, SslConfigs.SSL_KEYSTORE_KEY_CONFIG,
      SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG, SslConfigs.SSL_KEY_PASSWORD_CONFIG);

  public KafkaClientConfig {
    security = Collections.unmodifiableMap(new LinkedHashMap<>(security));
  }

  /** PLAINTEXT, no authentication: the embedded broker of the demo and the tests. */
  public KafkaClientConfig(String bootstrapServers) {
    this(bootstrapServers, Map.of());
  }

  public static KafkaClientConfig from(ConfigSource source) {
    ConfigReader r = source.reader();
    String servers = r.get(BOOTSTRAP_SERVERS);
    Protocol protocol = r.get(SECURITY_PROTOCOL);
    Map<String, Object> p = new LinkedHashMap<>();
    p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, protocol.name());
    boolean tls = protocol == Protocol.SSL || protocol == Protocol.SASL_SSL;
    boolean sasl = protocol == Protocol.SASL_PLAINTEXT || protocol == Protocol.SASL_SSL;

    Path ca = r.get(SSL_CA_FILE);
    Path truststore = r.get(SSL_TRUSTSTORE);
    String truststorePassword = r.get(SSL_TRUSTSTORE_PASSWORD);
    Path cert = r.get(SSL_CERT_FILE);
    Path key = r.get(SSL_KEY_FILE);
    String keyPassword = r.get(SSL_KEY_PASSWORD);
    Path keystore = r.get(SSL_KEYSTORE);
    String keystorePassword = r.get(SSL_KEYSTORE_PASSWORD);
    boolean anyTls = ca != null || truststore != null || cert != null || key != null || keystore != null;
    r.check(tls || !anyTls, SECURITY_PROTOCOL, "is " + protocol + ", so the kafka.ssl.* files would not be used; "
        + "choose SSL or SASL_SSL");
    r.check(ca == null || truststore == null, SSL_TRUSTSTORE, "give kafka.ssl.ca-file or kafka.ssl.truststore, "
        + "not both");
    r.check((cert == null) == (key == null), SSL_KEY_FILE, "kafka.ssl.cert-file and kafka.ssl.key-file go together");
    r.check(keystore == null || cert == null, SSL_KEYSTORE, "give kafka.ssl.keystore or the PEM files, not both");
    r.check(truststore == null || truststorePassword != null, SSL_TRUSTSTORE_PASSWORD,
        "is required with kafka.ssl.truststore");
    r.check(keystore == null || keystorePassword != null, SSL_KEYSTORE_PASSWORD, "is required with kafka.ssl.keystore");
    if (ca != null) {
      readable(r, SSL_CA_FILE, ca);
      p.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
      p.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, ca.toAbsolutePath().toString());
    }
    if (truststore != null) {
      readable(r, SSL_TRUSTSTORE, truststore);
      p.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, storeType(truststore));
      p.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, truststore.toAbsolutePath().toString());
      p.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, new Password(String.valueOf(truststorePassword)));
    }
    if (cert != null && key != null) {
      // the PEM contents as values, so the key file needs no password and stays readable by this user only
      p.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PEM");
      p.put(SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG, new Password(read(r, SSL_CERT_FILE, cert)));
      p.put(SslConfigs.SSL_KEYSTORE_KEY_CONFIG, new Password(read(r, SSL_KEY_FILE, key)));
    }
    if (keystore != null) {
      readable(r, SSL_KEYSTORE, keystore);
      p.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, storeType(keystore));
      p.put(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, keystore.toAbsolutePath().toString());
      p.put(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, new Password(String.valueOf(keystorePassword)));
    }
    if (keyPassword != null) {
      p.put(SslConfigs.SSL_KEY_PASSWORD_CONFIG, new Password(keyPassword));
    }

    Mechanism mechanism = r.get(SASL_MECHANISM);
    String user = r.get(SASL_USERNAME);
    String password = r.get(SASL_PASSWORD);
    r.check(!sasl || mechanism != null, SASL_MECHANISM, "is required with security protocol " + protocol);
    r.check(!sasl || user != null, SASL_USERNAME, "is required with security protocol " + protocol);
    r.check(!sasl || password != null, SASL_PASSWORD, "is required with security protocol " + protocol
        + "; give it as a file: " + SASL_PASSWORD.envName() + ConfigSource.FILE_SUFFIX);
    r.check(sasl || (mechanism == null && user == null && password == null), SECURITY_PROTOCOL,
        "is " + protocol + ", so the kafka.sasl.* settings would not be used; choose SASL_SSL or SASL_PLAINTEXT");
    if (sasl && mechanism != null && user != null && password != null) {
      p.put(SaslConfigs.SASL_MECHANISM, mechanism.kafkaName);
      p.put(SaslConfigs.SASL_JAAS_CONFIG, new Password(jaas(mechanism, user, password)));
      if (mechanism == Mechanism.OAUTHBEARER) {
        p.put(SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS,
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler");
      }
    }

    Map<String, ConfigSource.Raw> passed = source.family(CLIENT);
    for (Map.Entry<String, ConfigSource.Raw> e : passed.entrySet()) {
      String property = e.getKey();
      String name = CLIENT.prefix() + property;
      String raw = e.getValue().value();
      if (OWNED.contains(property)) {
        r.problem(name, null, e.getValue().origin(), "is set by Stunwatch's own kafka.* keys (see "
            + "docs/configuration.md); set it there");
        continue;
      }
      String why = validate(property, raw);
      if (why != null) {
        r.problem(name, isSecret(property) ? "****" : raw, e.getValue().origin(), why);
        continue;
      }
      p.put(property, raw);
    }
    if (mechanism == Mechanism.OAUTHBEARER) {
      r.check(passed.containsKey(SaslConfigs.SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL), SASL_MECHANISM,
          "OAUTHBEARER needs the token endpoint: kafka.client." + SaslConfigs.SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL);
    }
    r.done();
    return new KafkaClientConfig(servers, p);
  }

  /** The properties every client of this component is created with. */
  public Map<String, Object> clientProperties() {
    Map<String, Object> all = new LinkedHashMap<>(security);
    all.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return all;
  }

  /**
   * Connects once and fails at once on what retrying cannot fix: a login the brokers refuse, or a broker
   * certificate this client does not trust. A broker that does not answer within {@code timeout}, or that refuses
   * an operation after the login, is left to the clients' own retries; PLAINTEXT has nothing to check.
   *
   * @throws KafkaLoginException naming the brokers, the principal and the reason
   */
  public void checkLogin(Duration timeout) {
    if (protocol() == Protocol.PLAINTEXT) {
      return;
    }
    Map<String, Object> p = clientProperties();
    p.put(AdminClientConfig.CLIENT_ID_CONFIG, "stunwatch-login-check");
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    try (Admin admin = Admin.create(p)) {
      admin.describeCluster().clusterId().get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof SslAuthenticationException) {
        throw new KafkaLoginException("the TLS handshake with Kafka at " + bootstrapServers + " failed: "
            + rootMessage(cause) + ". Is the brokers' CA in " + trustDescription() + ", and do their certificates "
            + "name the host in kafka.bootstrap-servers?", cause);
      }
      if (cause instanceof AuthenticationException) {
        throw new KafkaLoginException("Kafka at " + bootstrapServers + " refused the login of "
            + principalDescription() + ": " + rootMessage(cause) + ". Check kafka.sasl.username and the "
            + "password file", cause);
      }
      // not a login problem (a timeout, an authorization): the clients retry or report it themselves
    } catch (TimeoutException e) {
      // brokers unreachable for now: collectors buffer, Streams retries
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The login or the TLS trust of a client cannot work as configured: retrying will not help. */
  public static final class KafkaLoginException extends IllegalStateException {
    KafkaLoginException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private String trustDescription() {
    Object type = security.get(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG);
    Object location = security.get(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG);
    return location == null ? "the JVM's default CAs (kafka.ssl.ca-file is not set)"
        : ("PEM".equals(type) ? "kafka.ssl.ca-file " : "kafka.ssl.truststore ") + location;
  }

  private static String rootMessage(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String m = root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
    return root == t || t.getMessage() == null ? m : t.getMessage() + " (" + m + ")";
  }

  /** The protocol in use. */
  public Protocol protocol() {
    Object p = security.get(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG);
    return p == null ? Protocol.PLAINTEXT : Protocol.valueOf(String.valueOf(p));
  }

  /** Who this client logs in as, for messages: {@code user 'x' (SCRAM-SHA-512)}, or null without SASL. */
  public String principalDescription() {
    Object jaas = security.get(SaslConfigs.SASL_JAAS_CONFIG);
    if (!(jaas instanceof Password pw)) {
      return null;
    }
    Matcher m = Pattern.compile("(?:username|clientId)=\"((?:[^\"\\\\]|\\\\.)*)\"")
        .matcher(pw.value());
    return "user '" + (m.find() ? m.group(1).replace("\\\"", "\"").replace("\\\\", "\\") : "?") + "' ("
        + security.get(SaslConfigs.SASL_MECHANISM) + ")";
  }

  @Override
  public String toString() {
    Map<String, Object> shown = new LinkedHashMap<>();
    security.forEach((k, v) -> shown.put(k, v instanceof Password || isSecret(k) ? "****" : v));
    return "KafkaClientConfig[bootstrapServers=" + bootstrapServers + ", " + shown + "]";
  }

  /** The JAAS entry of a login, its values quoted as JAAS reads them. */
  static String jaas(Mechanism m, String user, String password) {
    String u = quote(user);
    String pw = quote(password);
    return m.loginModule + " required " + (m == Mechanism.OAUTHBEARER
        ? "clientId=" + u + " clientSecret=" + pw : "username=" + u + " password=" + pw) + ";";
  }

  private static String quote(String v) {
    return '"' + v.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }

  private static boolean isSecret(String property) {
    return property.contains("password") || property.contains("secret") || property.endsWith(".key")
        || property.contains("jaas");
  }

  /**
   * Why a pass-through property is refused, or null: it must be a property of the producer, the consumer or the
   * admin client, and its value must parse and validate as that client defines it.
   */
  static String validate(String property, String raw) {
    ConfigDef.ConfigKey key = null;
    for (ConfigDef def : List.of(ProducerConfig.configDef(), ConsumerConfig.configDef(),
        AdminClientConfig.configDef())) {
      key = def.configKeys().get(property);
      if (key != null) {
        break;
      }
    }
    if (key == null) {
      return "is not a property of the Kafka producer, consumer or admin client";
    }
    try {
      Object parsed = ConfigDef.parseType(property, raw, key.type);
      if (key.validator != null) {
        key.validator.ensureValid(property, parsed);
      }
      return null;
    } catch (ConfigException e) {
      return e.getMessage();
    }
  }

  private static void readable(ConfigReader r, ConfigKey<Path> key, Path file) {
    if (!Files.isReadable(file)) {
      r.check(false, key, "cannot read " + file);
    }
  }

  private static String read(ConfigReader r, ConfigKey<Path> key, Path file) {
    try {
      return Files.readString(file, StandardCharsets.US_ASCII).trim();
    } catch (IOException | RuntimeException e) {
      r.check(false, key, "cannot read " + file + ": " + e.getMessage());
      return "";
    }
  }

  private static String storeType(Path store) {
    String n = store.getFileName().toString().toLowerCase(Locale.ROOT);
    return n.endsWith(".p12") || n.endsWith(".pfx") || n.endsWith(".pkcs12") ? "PKCS12" : "JKS";
  }

  private static String parseServers(String raw) {
    for (String s : raw.split(",")) {
      String hp = s.trim();
      int colon = hp.lastIndexOf(':');
      if (colon <= 0 || colon == hp.length() - 1) {
        throw new IllegalArgumentException("must be a comma-separated list of host:port, '" + hp + "' is not");
      }
      try {
        int port = Integer.parseInt(hp.substring(colon + 1));
        if (port < 1 || port > 65535) {
          throw new NumberFormatException();
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("port of '" + hp + "' must be an integer in 1..65535");
      }
    }
    return raw.replace(" ", "");
  }
}
