package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.config.ConfigKey;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The docs say only what the product is: every topic they name or count is in {@link Topics}, every
 * {@code stunwatch} command and option they show in code is one the CLI has, every configuration key they name is
 * in the catalog, and every relative link and anchor leads somewhere. Each failure names the file and line.
 *
 * <p>It lives in the benchmarks module, in the launcher's package, because this is the one class path that holds the
 * whole command line the docs show: the product's commands and {@code stunwatch bench}, which is never shipped.
 */
class DocsConsistencyTest {

  private static final Path ROOT = Path.of("..");
  /** Names in the {@code stunwatch.} namespace that are files, not topics. */
  private static final Set<String> NOT_TOPICS = Set.of("stunwatch.properties", "stunwatch.jar", "stunwatch.conf");
  private static final Pattern TOPIC = Pattern.compile("(?<![\\w.$/-])stunwatch\\.([a-z]+(?:-[a-z]+)*)(?![\\w.-])");
  private static final Pattern TOPIC_COUNT = Pattern.compile("\\b(\\d+) (?:Stunwatch )?topics\\b");
  private static final Pattern CODE_SPAN = Pattern.compile("`([^`\\n]+)`");
  private static final Pattern COMMAND = Pattern.compile("(?:^|[\\s$(/])(?:\\./)?stunwatch((?: [a-z][a-z-]*)+)(.*)$");
  private static final Pattern OPTION = Pattern.compile("(?<![\\w-])(--[a-z][a-z-]*)");
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

  private static List<Path> docs;
  private static CommandLine cli;
  private static Set<String> keys;
  private static Set<String> families;
  private static Set<String> keyRoots;

  @BeforeAll
  static void read() throws IOException {
    try (Stream<Path> walk = Files.walk(ROOT, 12)) {
      docs = walk.filter(p -> p.toString().endsWith(".md"))
          .filter(p -> Stream.of("target", "node_modules", ".git", "test").noneMatch(d -> contains(p, d)))
          .sorted().toList();
    }
    cli = Stunwatch.commandLine(new LaunchContext(Map.of(), new PrintWriter(new StringWriter()),
        new PrintWriter(new StringWriter()), Clock.systemUTC()));
    keys = new HashSet<>();
    families = new HashSet<>();
    keyRoots = new HashSet<>();
    for (ConfigKey<?> k : ConfigCatalog.ALL) {
      if (k.family()) {
        families.add(k.prefix());
      } else {
        keys.add(k.name());
      }
      keyRoots.add(k.name().substring(0, k.name().indexOf('.')));
    }
  }

  private static boolean contains(Path p, String dir) {
    for (Path part : ROOT.relativize(p)) {
      if (part.toString().equals(dir)) {
        return true;
      }
    }
    return false;
  }

  /** A measured ratio: a number or a range of them, times something ("3.2×", "2.5 times") or of raw Kafka's rate. */
  private static final Pattern FIGURE = Pattern.compile(
      "\\d+(?:\\.\\d+)?(?:[–-]\\d+(?:\\.\\d+)?)?(?=×| times | of raw)");

  @Test
  void everyFigureOfTheLimitsIsOneOfPerformanceMd() throws IOException {
    List<String> limits = Files.readAllLines(ROOT.resolve("docs/limits.md"));
    String performance = Files.readString(ROOT.resolve("docs/performance.md"));
    List<String> wrong = new ArrayList<>();
    int figures = 0;
    for (int i = 0; i < limits.size(); i++) {
      Matcher m = FIGURE.matcher(limits.get(i));
      while (m.find()) {
        figures++;
        if (!performance.contains(m.group())) {
          wrong.add("docs/limits.md:" + (i + 1) + ": " + m.group() + " is not a figure of docs/performance.md");
        }
      }
    }
    assertThat(figures).as("figures in docs/limits.md").isPositive();
    assertThat(wrong).isEmpty();
  }

  @Test
  void everyTopicNamedOrCountedIsATopic() {
    Set<String> names = Topics.ALL.stream().map(Topic::name).collect(Collectors.toSet());
    List<String> wrong = new ArrayList<>();
    forEachLine((where, line) -> {
      Matcher m = TOPIC.matcher(line);
      while (m.find()) {
        String name = m.group();
        if (!names.contains(name) && !NOT_TOPICS.contains(name)) {
          wrong.add(where + ": no topic " + name);
        }
      }
      Matcher c = TOPIC_COUNT.matcher(line);
      while (c.find()) {
        if (Integer.parseInt(c.group(1)) != Topics.ALL.size()) {
          wrong.add(where + ": " + c.group() + ", but Topics has " + Topics.ALL.size());
        }
      }
    });
    assertThat(wrong).isEmpty();
  }

  @Test
  void everyCommandAndOptionShownIsOneTheCliHas() {
    List<String> wrong = new ArrayList<>();
    forEachCode((where, code) -> {
      Matcher m = COMMAND.matcher(code);
      if (!m.find()) {
        return;
      }
      CommandLine c = cli;
      String[] words = m.group(1).trim().split(" ");
      int used = 0;
      for (String w : words) {
        CommandLine sub = c.getSubcommands().get(w);
        if (sub == null) {
          break;
        }
        c = sub;
        used++;
      }
      String path = String.join(" ", List.of(words).subList(0, used));
      if (used < words.length && !c.getSubcommands().isEmpty()) {
        wrong.add(where + ": 'stunwatch " + path + "' has no subcommand '" + words[used] + "'");
        return;
      }
      Matcher o = OPTION.matcher(m.group(2));
      while (o.find()) {
        if (c.getCommandSpec().findOption(o.group(1)) == null) {
          wrong.add(where + ": 'stunwatch " + path + "' has no option " + o.group(1));
        }
      }
    });
    assertThat(wrong).isEmpty();
  }

  @Test
  void everyConfigurationKeyNamedIsInTheCatalog() {
    Pattern key = Pattern.compile("^(" + String.join("|", keyRoots) + ")\\.[a-z0-9-]+(?:\\.[a-z0-9-]+)*$");
    List<String> wrong = new ArrayList<>();
    forEachCode((where, code) -> {
      if (code.contains("unknown key")) {
        return; // the example of a misspelt key
      }
      for (String token : code.split("[\\s=,:]+")) {
        if (!key.matcher(token).matches()
            || token.matches(".*\\.(md|java|yml|yaml|json|jar|properties|log|pem|key|crt|p12|com|local|lab)$")) {
          continue;
        }
        if (!keys.contains(token) && families.stream().noneMatch(token::startsWith)) {
          wrong.add(where + ": no configuration key " + token);
        }
      }
    });
    assertThat(wrong).isEmpty();
  }

  @Test
  void everyRelativeLinkAndAnchorLeadsSomewhere() {
    List<String> wrong = new ArrayList<>();
    for (Path doc : docs) {
      List<String> lines = lines(doc);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = LINK.matcher(lines.get(i));
        while (m.find()) {
          String target = m.group(1);
          if (target.matches("^[a-z]+:.*")) {
            continue; // http:, https:, mailto:
          }
          String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
          String anchor = target.contains("#") ? target.substring(target.indexOf('#') + 1) : null;
          Path to = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
          String where = ROOT.relativize(doc) + ":" + (i + 1);
          if (!Files.exists(to)) {
            wrong.add(where + ": " + target + " leads nowhere");
          } else if (anchor != null && to.toString().endsWith(".md") && !anchors(to).contains(anchor)) {
            wrong.add(where + ": " + target + " has no heading #" + anchor);
          } else if (file.isEmpty() && anchor == null) {
            wrong.add(where + ": an empty link");
          }
        }
      }
    }
    assertThat(wrong).isEmpty();
  }

  /** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
  static Set<String> anchors(Path md) {
    Set<String> out = new HashSet<>();
    boolean fenced = false;
    for (String line : lines(md)) {
      if (line.startsWith("```")) {
        fenced = !fenced;
      }
      if (!fenced && line.startsWith("#")) {
        String text = line.replaceFirst("^#+\\s*", "").trim().toLowerCase(Locale.ROOT);
        out.add(text.replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
      }
    }
    return out;
  }

  private interface LineVisitor {
    void visit(String where, String text);
  }

  private static void forEachLine(LineVisitor v) {
    for (Path doc : docs) {
      List<String> lines = lines(doc);
      for (int i = 0; i < lines.size(); i++) {
        v.visit(ROOT.relativize(doc) + ":" + (i + 1), lines.get(i));
      }
    }
  }

  /** Each code span, and each line of a fenced block, with where it is. */
  private static void forEachCode(LineVisitor v) {
    for (Path doc : docs) {
      List<String> lines = lines(doc);
      boolean fenced = false;
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        String where = ROOT.relativize(doc) + ":" + (i + 1);
        if (line.strip().startsWith("```")) {
          fenced = !fenced;
          continue;
        }
        if (fenced) {
          v.visit(where, line);
          continue;
        }
        Matcher m = CODE_SPAN.matcher(line);
        while (m.find()) {
          v.visit(where, m.group(1));
        }
      }
    }
  }

  private static List<String> lines(Path p) {
    try {
      return Files.readAllLines(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
