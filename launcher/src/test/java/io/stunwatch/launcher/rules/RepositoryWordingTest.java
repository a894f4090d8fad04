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
 * The repository speaks of the product as it is: its text describes what the code does and why, and its figures
 * live in docs/performance.md with the command that reproduces them. {@link #HISTORY} lists the wording this rules
 * out.
 *
 * <p>The phrases are assembled from parts ({@link #words}) so that this file does not itself contain them.
 */
class RepositoryWordingTest {

  /** Wording that only makes sense as development history. */
  static final Pattern HISTORY = Pattern.compile("(?i)" + String.join("|",
      "\\b" + words("sess", "ions? ") + "(\\d+|N)\\b",
      "\\b" + words("start", "ing build") + "\\b",
      "\\b(before|after) " + words("the ch", "ange") + "\\b",
      "\\b(before|after|since) " + words("sess", "ion") + "\\b",
      "\\bin (the|a) " + words("previous sess", "ion") + "\\b",
      "\\d+(\\.\\d+)? ?% " + words("of the str", "eam threads?") + "\\b",
      words("catch-up's pro", "file"),
      "\\b" + words("profil", "er") + " (showed|found)\\b"));

  /** Joins parts of a phrase, so that the phrase appears in no source file of the repository. */
  static String words(String... parts) {
    return String.join("", parts);
  }

  private static final Set<String> SKIPPED_DIRS = Set.of(".git", "target", "node_modules", ".idea");
  private static final Set<String> TEXT = Set.of("java", "md", "yml", "yaml", "json", "sh", "xml", "properties",
      "conf", "txt", "service", "html", "js", "css", "toml", "env");

  @Test
  void theHistoryPatternCatchesWhatItIsFor() {
    for (String diary : List.of(words("as measured in sess", "ion 24"), words("faster than the start", "ing build"),
        words("2.8 % of the str", "eam threads' CPU"), words("before sess", "ion 23"),
        words("Before the ch", "ange, it"))) {
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
    List<String> found = new ArrayList<>();
    int scanned = 0;
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : (Iterable<Path>) files.filter(p -> isText(root, p))::iterator) {
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
