package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.config.ConfigKey;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/configuration.md is generated from the catalog; this fails when someone forgets to regenerate it. */
class ConfigurationDocTest {

  @Test
  void configurationReferenceMatchesTheCatalog() throws Exception {
    String doc = Files.readString(Path.of("..", "docs", "configuration.md"));
    assertThat(doc)
        .as("docs/configuration.md is stale: run ./stunwatch config keys --markdown > docs/configuration.md")
        .isEqualTo(ConfigCommand.markdown());
  }

  @Test
  void catalogHasEveryComponentsKeysOnce() {
    assertThat(ConfigCatalog.ALL).extracting(ConfigKey::name).doesNotHaveDuplicates()
        .contains("broker.port", "kafka.bootstrap-servers", "log.level");
    assertThat(ConfigCatalog.ALL).extracting(ConfigKey::envName).doesNotHaveDuplicates();
  }
}
