package io.stunwatch.collectors.hosts;

import io.stunwatch.config.ConfigException;
import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigKeys;
import io.stunwatch.config.ConfigReader;
import io.stunwatch.config.ConfigSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Settings of {@code stunwatch collect hosts}: which hosts, how to reach them over SSH, what to run there.
 *
 * @param source            where the hosts come from
 * @param hostsFile         the host list ({@code name [address[:port]]} per line): the hosts with
 *                          {@code source=file}, an address book with {@code source=inventory}
 * @param user              the SSH user on every host
 * @param port              the SSH port where the list names none
 * @param identityFile      the private key (public-key authentication only)
 * @param knownHosts        the pinned host keys
 * @param interval          seconds between readings ({@code -l})
 * @param command           the streaming command, {@code {seconds}} replaced by the interval
 * @param schedulerCommand  the scheduler-state command
 * @param schedulerInterval how often it runs on each host
 * @param connectTimeout    the most a connection, login and command start may take
 * @param silentAfter       a stream that prints nothing this long is dropped and reopened
 * @param maxBackoff        the longest wait between attempts on a failing host
 * @param timezone          zone of the hosts' {@code Timestamp} lines (ESXi keeps UTC)
 * @param metricsPort       port of {@code /metrics}, 0 for none
 * @param metricsHost       interface of {@code /metrics}
 * @param vmkernelCommand   the command that follows the host's vmkernel.log for vMotions' precopy bandwidth; empty
 *                          for none
 */
public record HostsConfig(Source source, Path hostsFile, String user, int port, Path identityFile, Path knownHosts,
    Duration interval, String command, String schedulerCommand, Duration schedulerInterval, Duration connectTimeout,
    Duration silentAfter, Duration maxBackoff, ZoneId timezone, int metricsPort, String metricsHost,
    String vmkernelCommand) {

  /** Where the hosts come from. */
  public enum Source {
    /** The GPU hosts of the vCenter inventory that {@code collect vcenter} publishes, followed as they change. */
    INVENTORY,
    /** The hosts of {@code hosts.file}, reread when it changes. */
    FILE
  }

  public static final ConfigKey<Source> SOURCE = ConfigKeys.enumeration("hosts.source", Source.class,
      Source.INVENTORY, "Where the hosts come from: inventory (every host of the vCenter inventory with an NVIDIA GPU, "
          + "or named in hosts.file, followed as hosts are added and removed) or file (the hosts of hosts.file).");
  public static final ConfigKey<Path> FILE = ConfigKeys.path("hosts.file", null,
      "Host list, one 'name [address[:port]]' per line, # for comments; reread when it changes. With "
          + "hosts.source=inventory it is an address book: it adds hosts without GPUs in the inventory and says how to "
          + "reach hosts whose inventory name is not their SSH address.");
  public static final ConfigKey<String> USER = ConfigKeys.string("hosts.ssh.user", "root",
      "SSH user on the hosts (see docs/collectors.md for a dedicated ESXi user).");
  public static final ConfigKey<Integer> PORT = ConfigKeys.port("hosts.ssh.port", 22,
      "SSH port of the hosts where hosts.file names none.");
  public static final ConfigKey<Path> IDENTITY_FILE = ConfigKeys.path("hosts.ssh.identity-file", null,
      "Private key of hosts.ssh.user (OpenSSH or PEM format; RSA or ECDSA). Required: only public-key "
          + "authentication is offered.");
  public static final ConfigKey<Path> KNOWN_HOSTS = ConfigKeys.path("hosts.ssh.known-hosts", null,
      "OpenSSH known_hosts with every host's key ([name]:port for ports other than 22; hashed entries work). "
          + "Required: a host whose key is missing or different is refused and counted, never trusted on first use.");
  public static final ConfigKey<Duration> INTERVAL = ConfigKeys.duration("hosts.interval", Duration.ofSeconds(5),
      Duration.ofSeconds(1), Duration.ofMinutes(10), "Time between readings of each host (nvidia-smi's -l).");
  public static final ConfigKey<String> COMMAND = ConfigKeys.string("hosts.command",
      "nvidia-smi vgpu -q -l {seconds}",
      "The streaming command run on each host; {seconds} becomes hosts.interval in whole seconds.");
  public static final ConfigKey<String> SCHEDULER_COMMAND = ConfigKeys.string("hosts.scheduler-command",
      "nvidia-smi vgpu -ss", "The command that prints each GPU's vGPU scheduler state.");
  public static final ConfigKey<Duration> SCHEDULER_INTERVAL = ConfigKeys.duration("hosts.scheduler-interval",
      Duration.ofMinutes(5), Duration.ofMinutes(1), Duration.ofDays(1),
      "How often the scheduler state is read on each host.");
  public static final ConfigKey<Duration> CONNECT_TIMEOUT = ConfigKeys.duration("hosts.connect-timeout",
      Duration.ofSeconds(15), Duration.ofSeconds(1), Duration.ofMinutes(5),
      "The most connecting, logging in and starting the command may take on one host.");
  public static final ConfigKey<Duration> SILENT_AFTER = ConfigKeys.duration("hosts.silent-after",
      Duration.ofSeconds(30), Duration.ofSeconds(2), Duration.ofHours(1),
      "A host whose stream prints nothing this long is disconnected and tried again; at least twice "
          + "hosts.interval.");
  public static final ConfigKey<Duration> MAX_BACKOFF = ConfigKeys.duration("hosts.max-backoff",
      Duration.ofMinutes(5), Duration.ofSeconds(1), Duration.ofHours(1),
      "The longest wait between attempts on a failing host (from 1 s, doubling).");
  public static final ConfigKey<ZoneId> TIMEZONE = ConfigKeys.custom("hosts.timezone", "zone",
      "a time zone id such as UTC or Europe/Berlin", ZoneId.of("UTC"),
      "Zone of the hosts' Timestamp lines. ESXi keeps UTC.", HostsConfig::zone);
  public static final ConfigKey<Integer> METRICS_PORT = ConfigKeys.port("hosts.metrics-port", 0,
      "Port of the collector's Prometheus /metrics page; 0 turns it off.");
  public static final ConfigKey<String> METRICS_HOST = ConfigKeys.string("hosts.metrics-host", "localhost",
      "Interface of the /metrics page. Loopback by default; 0.0.0.0 lets a remote Prometheus scrape it.");

  public static final ConfigKey<String> VMKERNEL_COMMAND = ConfigKeys.string("hosts.vmkernel-command",
      "tail -n 0 -F /var/log/vmkernel.log",
      "The command that follows each host's vmkernel.log from its end, for the precopy bandwidth of the vMotions "
          + "the host sends (its 'Stopping pre-copy' lines); 'none' turns it off. Only new lines are read: the log "
          + "is never read whole.");

  public static final List<ConfigKey<?>> KEYS = List.of(SOURCE, FILE, USER, PORT, IDENTITY_FILE, KNOWN_HOSTS,
      INTERVAL, COMMAND, SCHEDULER_COMMAND, SCHEDULER_INTERVAL, CONNECT_TIMEOUT, SILENT_AFTER, MAX_BACKOFF, TIMEZONE,
      METRICS_PORT, METRICS_HOST, VMKERNEL_COMMAND);

  public static HostsConfig from(ConfigSource source) {
    ConfigReader r = source.reader();
    HostsConfig c = new HostsConfig(r.get(SOURCE), r.get(FILE), r.get(USER), r.get(PORT), r.get(IDENTITY_FILE),
        r.get(KNOWN_HOSTS), r.get(INTERVAL), r.get(COMMAND), r.get(SCHEDULER_COMMAND), r.get(SCHEDULER_INTERVAL),
        r.get(CONNECT_TIMEOUT), r.get(SILENT_AFTER), r.get(MAX_BACKOFF), r.get(TIMEZONE), r.get(METRICS_PORT),
        r.get(METRICS_HOST), r.get(VMKERNEL_COMMAND).strip());
    r.check(c.identityFile != null, IDENTITY_FILE, "is required: collect hosts logs in with a key only");
    r.check(c.knownHosts != null, KNOWN_HOSTS, "is required: host keys are pinned, never trusted on first use");
    r.check(c.source != Source.FILE || c.hostsFile != null, FILE, "is required with hosts.source=file");
    r.check(c.silentAfter.compareTo(c.interval.multipliedBy(2)) >= 0, SILENT_AFTER,
        "must be at least twice hosts.interval (" + ConfigKeys.format(c.interval) + ")");
    r.done();
    return c;
  }

  private static ZoneId zone(String raw) {
    try {
      return ZoneId.of(raw.trim());
    } catch (DateTimeException e) {
      throw new IllegalArgumentException("must be a time zone id such as UTC or Europe/Berlin");
    }
  }

  /**
   * Checks that the key and {@code known_hosts} files can be read, as the collector starts (not when the
   * configuration is checked elsewhere).
   *
   * @throws ConfigException naming each file that cannot be read
   */
  public void checkFiles() {
    List<ConfigException.Problem> problems = new ArrayList<>();
    for (Map.Entry<ConfigKey<Path>, Path> f : Map.of(IDENTITY_FILE, identityFile, KNOWN_HOSTS, knownHosts)
        .entrySet()) {
      if (!Files.isReadable(f.getValue())) {
        problems.add(new ConfigException.Problem(f.getKey().name(), f.getValue().toString(), "configuration",
            "not a readable file"));
      }
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
  }

  /** Whether each host's vmkernel.log is followed. */
  public boolean followsVmkernelLog() {
    return !vmkernelCommand.isBlank() && !vmkernelCommand.equals("none");
  }

  /** The streaming command with its interval. */
  public String streamCommand() {
    return command.replace("{seconds}", Long.toString(Math.max(1, interval.toSeconds())));
  }
}
