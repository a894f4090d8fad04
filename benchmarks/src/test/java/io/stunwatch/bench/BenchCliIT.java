package io.stunwatch.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.testsupport.SharedFixtures;
import io.stunwatch.testsupport.StunwatchProcess;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code stunwatch bench} as {@code ./stunwatch bench} runs it: the benchmarks' jar beside the product jar, the
 * command found on the class path.
 */
class BenchCliIT {

  private static String run(String... args) throws Exception {
    Path bench = SharedFixtures.repoRoot().resolve("benchmarks/target/stunwatch-bench.jar");
    List<String> cmd = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), "-cp", StunwatchProcess.jar() + java.io.File.pathSeparator + bench,
        "io.stunwatch.launcher.Stunwatch"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out;
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      out = r.lines().collect(Collectors.joining("\n"));
    }
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }

  @Test
  void everyBenchmarkIsACommandBesideTheProducts() throws Exception {
    assertThat(run("--help")).contains("collect", "bench");
    String bench = run("bench", "--help");
    for (String b : List.of("processor", "api", "fleet", "hosts", "accuracy")) {
      assertThat(bench).contains(b);
      assertThat(run("bench", b, "--help")).startsWith("Usage: stunwatch bench " + b);
    }
  }
}
