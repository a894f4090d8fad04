package io.stunwatch.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigSourceTest {

  enum Mode { FAST, SAFE }

  static final ConfigKey<Integer> PORT = ConfigKeys.port("demo.port", 8080, "port");
  static final ConfigKey<Duration> WINDOW = ConfigKeys.duration("demo.settle-window", Duration.ofSeconds(120),
      Duration.ofSeconds(1), Duration.ofHours(1), "window");
  static final ConfigKey<Mode> MODE = ConfigKeys.enumeration("demo.mode", Mode.class, Mode.SAFE, "mode");
  static final ConfigKey<String> TOKEN = ConfigKeys.secret("demo.token", "token");
  static final ConfigKey<Boolean> FLAG = ConfigKeys.bool("demo.flag", false, "flag");
  static final List<ConfigKey<?>> KNOWN = List.of(PORT, WINDOW, MODE, TOKEN, FLAG);

  @TempDir
  Path dir;

  @Test
  void envNamesAreDerivedFromKeyNames() {
    assertThat(WINDOW.envName()).isEqualTo("STUNWATCH_DEMO_SETTLE_WINDOW");
  }

  @Test
  void laterLayersWinDefaultFileEnvThenFlag() throws Exception {
    Path file = write("demo.port=1000\ndemo.mode=fast\ndemo.settle-window=30s\n");
    ConfigSource src = ConfigSource.load(Optional.of(file), Map.of("STUNWATCH_DEMO_PORT", "2000"), KNOWN);
    ConfigReader r = src.reader();
    assertThat(r.get(PORT)).isEqualTo(2000);
    assertThat(r.get(MODE)).isEqualTo(Mode.FAST);
    assertThat(r.get(WINDOW)).isEqualTo(Duration.ofSeconds(30));
    assertThat(r.get(FLAG)).isFalse();
    r.done();
    assertThat(r.effective().get("demo.port")).isEqualTo("2000 (env STUNWATCH_DEMO_PORT)");
    assertThat(r.effective().get("demo.mode")).isEqualTo("FAST (" + file + ":2)");
    assertThat(r.effective().get("demo.flag")).isEqualTo("false (default)");

    src.override(PORT, 3000, "--port");
    assertThat(src.reader().get(PORT)).isEqualTo(3000);
  }

  @Test
  void everyProblemIsReportedAtOnceWithKeyValueOriginAndWhatIsAllowed() throws Exception {
    Path file = write("# comment\ndemo.mode=turbo\ndemo.prot=1\nnot a pair\n");
    ConfigSource src = ConfigSource.load(Optional.of(file),
        Map.of("STUNWATCH_DEMO_PORT", "99999", "STUNWATCH_DEMO_SETTLE_WINDOW", "2 fortnights"), KNOWN);
    ConfigReader r = src.reader();
    r.get(PORT);
    r.get(MODE);
    r.get(WINDOW);
    assertThatThrownBy(r::done)
        .isInstanceOf(ConfigException.class)
        .satisfies(e -> assertThat(((ConfigException) e).problems()).hasSize(5))
        .hasMessageContaining("demo.prot (from " + file + ":3): unknown key; did you mean 'demo.port'?")
        .hasMessageContaining(file + ":4: expected key=value, found 'not a pair'")
        .hasMessageContaining("demo.port = '99999' (from env STUNWATCH_DEMO_PORT): must be an integer in 0..65535")
        .hasMessageContaining("demo.mode = 'turbo' (from " + file + ":2): must be one of fast, safe")
        .hasMessageContaining("demo.settle-window = '2 fortnights' (from env STUNWATCH_DEMO_SETTLE_WINDOW): "
            + "must be a duration from 1s to 1h");
  }

  @Test
  void aSecretComesFromAFileAndIsNeverEchoed() throws Exception {
    Path secret = write("s3cr3t-token\n");
    ConfigReader r = ConfigSource.load(Optional.empty(), Map.of("STUNWATCH_DEMO_TOKEN_FILE", secret.toString()),
        KNOWN).reader();
    assertThat(r.get(TOKEN)).isEqualTo("s3cr3t-token");
    assertThat(r.effective().get("demo.token")).startsWith("**** (file ").doesNotContain("s3cr3t");

    ConfigKey<Integer> secretInt = ConfigKeys.custom("demo.pin", "secret", "digits", null, "pin", raw -> {
      throw new IllegalArgumentException("must be digits");
    });
    ConfigReader bad = ConfigSource.load(Optional.empty(), Map.of("STUNWATCH_DEMO_TOKEN", "hunter2"), KNOWN).reader();
    bad.get(ConfigKeys.secret("demo.token", "t"));
    bad.get(secretInt);
    bad.done();
    assertThat(bad.effective().toString()).doesNotContain("hunter2");
  }

  @Test
  void unknownStunwatchEnvironmentVariablesAreWarnings() {
    ConfigSource src = ConfigSource.load(Optional.empty(),
        Map.of("STUNWATCH_DEMO_PROT", "1", "STUNWATCH_STRICT", "1", "PATH", "/bin"), KNOWN);
    assertThat(src.warnings()).containsExactly(
        "environment variable STUNWATCH_DEMO_PROT is not a Stunwatch setting; ignored");
  }

  @Test
  void durationsAcceptShortAndIsoForms() {
    for (String raw : List.of("2m", "120s", "120000ms", "PT2M")) {
      assertThat(ConfigSource.of(Map.of("demo.settle-window", raw)).reader().get(WINDOW))
          .as(raw).isEqualTo(Duration.ofMinutes(2));
    }
  }

  @Test
  void keyNamesMustBeLowerCaseWords() {
    assertThatThrownBy(() -> ConfigKeys.port("Demo_Port", 1, "x")).hasMessageContaining("lower-case");
  }

  private Path write(String content) throws Exception {
    Path f = Files.createTempFile(dir, "cfg", ".properties");
    Files.writeString(f, content);
    return f;
  }
}
