package io.stunwatch.collectors.throughput;

import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigKeys;
import io.stunwatch.config.ConfigReader;
import io.stunwatch.config.ConfigSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Settings of the training-throughput input.
 *
 * @param logFile       the job's log file; the input runs only when it is set
 * @param pattern       a regex with group {@code value}, tried before the built-in tf_cnn_benchmarks/Horovod ones
 * @param unit          unit of the values
 * @param job           job name; default the log file's name
 * @param fromBeginning read what the log already holds at start, instead of only new lines
 * @param interval      how often the log is checked for new lines
 */
public record ThroughputConfig(Path logFile, Pattern pattern, String unit, String job, boolean fromBeginning,
    Duration interval) {

  public static final ConfigKey<Path> LOG_FILE = ConfigKeys.path("throughput.log-file", null,
      "The training job's log file to follow (rotation is followed). Unset: the throughput input does not run.");
  public static final ConfigKey<Pattern> PATTERN = ConfigKeys.custom("throughput.pattern", "regex",
      "a Java regular expression with a named group 'value'", null,
      "Extra throughput pattern, tried before the built-in tf_cnn_benchmarks and Horovod ones.",
      ThroughputConfig::pattern);
  public static final ConfigKey<String> UNIT = ConfigKeys.string("throughput.unit", "images/sec",
      "Unit of the throughput values.");
  public static final ConfigKey<String> JOB = ConfigKeys.optionalString("throughput.job",
      "Job name stamped on the samples. Default: the log file's name.");
  public static final ConfigKey<Boolean> FROM_BEGINNING = ConfigKeys.bool("throughput.from-beginning", false,
      "Read what the log already holds at start-up, not only new lines.");
  public static final ConfigKey<Duration> INTERVAL = ConfigKeys.duration("throughput.interval",
      Duration.ofMillis(250), Duration.ofMillis(10), Duration.ofMinutes(1), "How often the log is checked.");

  public static final List<ConfigKey<?>> KEYS = List.of(LOG_FILE, PATTERN, UNIT, JOB, FROM_BEGINNING, INTERVAL);

  public static ThroughputConfig from(ConfigSource source) {
    ConfigReader r = source.reader();
    ThroughputConfig c = new ThroughputConfig(r.get(LOG_FILE), r.get(PATTERN), r.get(UNIT), r.get(JOB),
        r.get(FROM_BEGINNING), r.get(INTERVAL));
    r.done();
    return c;
  }

  /** The job name for {@code file}: the configured one, else the file's name. */
  public String jobFor(Path file) {
    return job != null ? job : file.getFileName().toString();
  }

  public ThroughputConfig withLogFile(Path file) {
    return new ThroughputConfig(file, pattern, unit, job, fromBeginning, interval);
  }

  private static Pattern pattern(String raw) {
    try {
      Pattern p = Pattern.compile(raw);
      if (!raw.contains("(?<value>")) {
        throw new IllegalArgumentException("must have a named group 'value', e.g. tokens/s=(?<value>\\d+)");
      }
      return p;
    } catch (PatternSyntaxException e) {
      throw new IllegalArgumentException("must be a valid regular expression: " + e.getDescription());
    }
  }
}
