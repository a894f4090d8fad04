package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.testsupport.SharedFixtures;
import io.stunwatch.testsupport.StunwatchProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's first command as a new user meets it: a clone of this working tree (its tracked and untracked files,
 * no build output) and a local Maven repository that holds no Stunwatch artifact, as on every new machine. There,
 * {@code ./stunwatch version} builds the product and answers, and {@code ./stunwatch demo} prints its first summary
 * line. The suite's own build cannot see a defect here: {@code mvn verify} resolves every module inside its reactor.
 */
class FreshCloneIT {

  /** A summary line of the demo: "[2026-12-01 10:00:00 UTC x60] 3 migrations, ...". */
  private static final String SUMMARY = "^\\[\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC .*\\] .*\\d+ migrations, ";

  @TempDir
  Path dir;

  @Test
  void theStunwatchCommandBuildsAndRunsTheDemoWithNoStunwatchArtifactInTheLocalRepository() throws Exception {
    Path clone = cloneWorkingTree(SharedFixtures.repoRoot(), dir.resolve("clone"));
    Path repo = localRepositoryWithoutStunwatch(dir.resolve("m2"));
    assertThat(repo.resolve("io/stunwatch")).doesNotExist();
    assertThat(clone.resolve("launcher/target")).doesNotExist();
    // offline: whatever the build needs is in the copied repository, and nothing is written back to the user's
    Files.createDirectories(clone.resolve(".mvn"));
    Files.writeString(clone.resolve(".mvn/maven.config"), "-o\n");
    Map<String, String> env = Map.of("MAVEN_OPTS", "-Dmaven.repo.local=" + repo);

    // The first command builds the jar (on a busy 2-core machine, minutes), then answers.
    try (StunwatchProcess version = StunwatchProcess.script(clone, env, "version")) {
      int exit = version.awaitExit(Duration.ofMinutes(12));
      assertThat(exit).as("./stunwatch version\n--- stdout ---\n%s\n--- stderr ---\n%s",
          String.join("\n", version.stdout()), String.join("\n", version.stderr())).isZero();
      assertThat(String.join("\n", version.stdout())).containsPattern("\\d+\\.\\d+\\.\\d+");
    }
    assertThat(clone.resolve("launcher/target/stunwatch.jar")).isRegularFile();

    // The second runs the demo on that jar until its first summary line.
    try (StunwatchProcess demo = StunwatchProcess.script(clone, env, "demo", "--port", "0", "--data-dir",
        dir.resolve("demo").toString(), "--summary-every", "100ms", "--duration", "10m")) {
      demo.awaitStdout(SUMMARY, Duration.ofMinutes(5));
      assertThat(demo.stderr()).as("the jar was built once, by the first command")
          .noneMatch(l -> l.contains("building"));
      assertThat(demo.interrupt(Duration.ofMinutes(2))).as("exit on Ctrl-C").isIn(0, 130);
      assertThat(demo.stdout()).anyMatch(l -> l.startsWith("Stopped."));
    }
  }

  /** Copies what a clone of {@code root}'s working tree has: the files git tracks or would track, nothing ignored. */
  private static Path cloneWorkingTree(Path root, Path to) throws IOException, InterruptedException {
    Process ls = new ProcessBuilder("git", "-C", root.toString(), "ls-files", "-z", "--cached", "--others",
        "--exclude-standard").redirectErrorStream(true).start();
    String out = new String(ls.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(ls.waitFor(60, TimeUnit.SECONDS) && ls.exitValue() == 0).as("git ls-files in %s: %s", root, out)
        .isTrue();
    for (String name : out.split("\0")) {
      Path from = root.resolve(name);
      if (name.isEmpty() || !Files.isRegularFile(from)) {
        continue; // a file deleted in the working tree, or a submodule
      }
      Path target = to.resolve(name);
      Files.createDirectories(target.getParent());
      Files.copy(from, target, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
    }
    return to;
  }

  /**
   * The local repository of this build, less {@code io/stunwatch}: hard links where the file system allows them (a
   * second or two for half a gigabyte), a copy where it does not.
   */
  private static Path localRepositoryWithoutStunwatch(Path to) throws IOException, InterruptedException {
    String prop = System.getProperty("stunwatch.maven.repo");
    Path from = prop != null && !prop.isBlank() && !prop.contains("${") ? Path.of(prop)
        : Path.of(System.getProperty("user.home"), ".m2", "repository");
    assertThat(from).as("the local Maven repository of this build").isDirectory();
    if (run(List.of("cp", "-al", from.toString(), to.toString())) != 0) {
      run(List.of("rm", "-rf", to.toString()));
      assertThat(run(List.of("cp", "-a", from.toString(), to.toString()))).as("cp -a %s %s", from, to).isZero();
    }
    assertThat(run(List.of("rm", "-rf", to.resolve("io/stunwatch").toString()))).isZero();
    return to;
  }

  private static int run(List<String> cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(new ArrayList<>(cmd)).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      return -1;
    }
    return p.exitValue();
  }
}
