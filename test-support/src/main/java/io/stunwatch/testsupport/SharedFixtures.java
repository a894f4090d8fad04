package io.stunwatch.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * The third-party fixtures in {@code ../shared/fixtures} beside the repository (outputs of real tools, see their
 * {@code PROVENANCE.md}). Tests read them in place and are skipped when the folder is absent: they are never
 * copied into the repository.
 */
public final class SharedFixtures {

  private SharedFixtures() {
  }

  /** The repository root: {@code stunwatch.repo.root} as set by the build, else the nearest parent with {@code stunwatch}. */
  public static Path repoRoot() {
    String prop = System.getProperty("stunwatch.repo.root");
    if (prop != null && !prop.isBlank() && !prop.contains("${")) {
      return Path.of(prop).toAbsolutePath().normalize();
    }
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null) {
      if (Files.isRegularFile(dir.resolve("stunwatch")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
        return dir;
      }
      dir = dir.getParent();
    }
    throw new IllegalStateException("cannot find the repository root above " + Path.of("").toAbsolutePath());
  }

  /** {@code ../shared/fixtures/<sub>}; skips the test when it does not exist. */
  public static Path dir(String sub) {
    Path dir = repoRoot().resolveSibling("shared").resolve("fixtures").resolve(sub);
    Assumptions.assumeTrue(Files.isDirectory(dir), () -> "shared fixtures not present: " + dir);
    return dir;
  }
}
