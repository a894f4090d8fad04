package io.stunwatch.launcher.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The repository speaks of the product, not of how it was built: no "session 24", no "the starting build", no
 * "before the change", no profiler percentages in comments. A comment says why; figures live in
 * docs/performance.md with the command that reproduces them.
 */
class RepositoryWordingTest {

  /** Wording that only makes sense as development history. */
  static final Pattern HISTORY = Pattern.compile("(?i)\\bsessions? (\\d+|N)\\b|\\bstarting build\\b"
      + "|\\b(before|after) the change\\b|\\b(before|after|since) session\\b|\\bin (the|a) previous session\\b"
      + "|\\d+(\\.\\d+)? ?% of the stream threads?\\b|catch-up's profile|\\bprofiler (showed|found)\\b");

  private static final Set<String> SKIPPED_DIRS = Set.of(".git", "target", "node_modules", ".idea");
  private static final Set<String> TEXT = Set.of("java", "md", "yml", "yaml", "json", "sh", "xml", "properties",
      "conf", "txt", "service", "html", "js", "css", "toml", "env");

  @Test
  void theHistoryPatternCatchesWhatItIsFor() {
    for (String diary : List.of("as measured in session 24", "faster than the starting build",
        "2.8 % of the stream threads' CPU", "before session 23", "Before the change, it")) {
      assertThat(HISTORY.matcher(diary).find()).as(diary).isTrue();
    }
    for (String product : List.of("sessionStorage keeps the token", "session.timeout.ms", "a Kafka session",
        "before the migration", "88 % GPU load")) {
      assertThat(HISTORY.matcher(product).find()).as(product).isFalse();
    }
  }

  @Test
  void noFileOfTheRepositoryTellsDevelopmentHistory() throws IOException {
    Path root = Path.of("..").toRealPath();
    Path self = root.resolve("launcher/src/test/java/io/stunwatch/launcher/rules/RepositoryWordingTest.java");
    List<String> found = new ArrayList<>();
    int scanned = 0;
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : (Iterable<Path>) files.filter(p -> isText(root, p))::iterator) {
        if (f.equals(self)) {
          continue;
        }
        scanned++;
        List<String> lines = lines(f);
        for (int i = 0; i < lines.size(); i++) {
          Matcher m = HISTORY.matcher(lines.get(i));
          if (m.find()) {
            found.add(root.relativize(f) + ":" + (i + 1) + ": \"" + m.group() + "\" in: " + lines.get(i).strip());
          }
        }
      }
    }
    assertThat(scanned).as("text files scanned").isGreaterThan(200);
    assertThat(found).as("development history in the repository (say why, not when; figures go to "
        + "docs/performance.md)").isEmpty();
  }

  private static boolean isText(Path root, Path p) {
    for (Path part : root.relativize(p)) {
      if (SKIPPED_DIRS.contains(part.toString())) {
        return false;
      }
    }
    String name = p.getFileName().toString();
    int dot = name.lastIndexOf('.');
    return Files.isRegularFile(p) && (dot > 0 && TEXT.contains(name.substring(dot + 1))
        || name.equals("Dockerfile") || name.equals("stunwatch") || name.equals("run"));
  }

  private static List<String> lines(Path f) {
    try {
      return Files.readAllLines(f, StandardCharsets.UTF_8);
    } catch (MalformedInputException e) {
      return List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(f.toString(), e);
    }
  }
}
