package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.testsupport.StunwatchProcess;
import java.time.Duration;
import java.util.List;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/** The shipped jar, as built by {@code mvn package}: the product and nothing of the benchmarks. */
class ProductJarIT {

  @Test
  void theProductJarHoldsNoBenchmarkAndHasNoBenchCommand() throws Exception {
    try (JarFile jar = new JarFile(StunwatchProcess.jar().toFile())) {
      List<String> bench = jar.stream().map(e -> e.getName())
          .filter(n -> n.startsWith("io/stunwatch/bench/") || n.contains("launcher/bench/")
              || n.equals("META-INF/services/" + AddedCommand.class.getName()))
          .toList();
      assertThat(bench).isEmpty();
      assertThat(jar.getEntry("io/stunwatch/launcher/Stunwatch.class")).isNotNull();
    }
    try (StunwatchProcess help = StunwatchProcess.start("--help")) {
      assertThat(help.awaitExit(Duration.ofSeconds(30))).isZero();
      assertThat(String.join("\n", help.stdout())).contains("collect").doesNotContain("bench");
    }
    try (StunwatchProcess bench = StunwatchProcess.start("bench", "processor")) {
      assertThat(bench.awaitExit(Duration.ofSeconds(30))).isEqualTo(ExitCodes.USAGE);
      assertThat(String.join("\n", bench.stderr())).contains("Unmatched argument");
    }
  }
}
