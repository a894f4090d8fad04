package io.stunwatch.model.topic;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Keeps docs/events.md in step with the catalog: every topic, every field, every shared type. */
class EventsDocTest {

  private String doc;

  @BeforeEach
  void read() throws Exception {
    doc = Files.readString(Path.of("..", "docs", "events.md"));
  }

  @Test
  void everyTopicHasASectionListingEveryFieldOfItsValue() {
    List<String> missing = new ArrayList<>();
    for (Topic<?, ?> topic : Topics.ALL) {
      String section = section("## `" + topic.name() + "`");
      if (section == null) {
        missing.add("section ## `" + topic.name() + "`");
        continue;
      }
      assertThat(section).as(topic.name()).contains("`" + topic.valueSerde().type().getSimpleName() + "`");
      for (RecordComponent c : topic.valueSerde().type().getRecordComponents()) {
        if (!section.contains("| `" + c.getName() + "` |")) {
          missing.add(topic.name() + " field " + c.getName());
        }
      }
      if (!doc.contains("| `" + topic.name() + "` |")) {
        missing.add("topic table row for " + topic.name());
      }
    }
    assertThat(missing).as("missing from docs/events.md").isEmpty();
  }

  @Test
  void theReadmeTopicTableNamesEveryTopicOnceAndNothingElse() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"));
    List<String> rows = Pattern.compile("^\\| `(stunwatch\\.[a-z-]+)` \\|",
        Pattern.MULTILINE).matcher(readme).results().map(m -> m.group(1)).toList();
    assertThat(rows).containsExactlyInAnyOrderElementsOf(Topics.ALL.stream().map(Topic::name).toList());
  }

  @Test
  void everyNestedRecordTypeIsDocumentedWithEveryField() {
    Set<Class<?>> nested = new LinkedHashSet<>();
    for (Topic<?, ?> topic : Topics.ALL) {
      for (RecordComponent c : topic.valueSerde().type().getRecordComponents()) {
        collect(c.getGenericType(), nested);
      }
    }
    nested.removeIf(t -> Topics.ALL.stream().anyMatch(topic -> topic.valueSerde().type() == t));
    List<String> missing = new ArrayList<>();
    for (Class<?> type : nested) {
      String section = section("### `" + type.getSimpleName() + "`");
      if (section == null) {
        missing.add("section ### `" + type.getSimpleName() + "`");
        continue;
      }
      for (RecordComponent c : type.getRecordComponents()) {
        if (!section.contains("| `" + c.getName() + "` |")) {
          missing.add(type.getSimpleName() + " field " + c.getName());
        }
      }
    }
    assertThat(nested).as("the walk must find the shared types").hasSizeGreaterThan(8);
    assertThat(missing).as("missing from docs/events.md").isEmpty();
  }

  private static void collect(Type type, Set<Class<?>> out) {
    if (type instanceof ParameterizedType p) {
      for (Type arg : p.getActualTypeArguments()) {
        collect(arg, out);
      }
    } else if (type instanceof Class<?> c && c.isRecord() && out.add(c)) {
      for (RecordComponent rc : c.getRecordComponents()) {
        collect(rc.getGenericType(), out);
      }
    }
  }

  /** The text from a heading to the next heading of the same or a higher level; null when absent. */
  private String section(String heading) {
    int start = doc.indexOf(heading + "\n");
    if (start < 0) {
      return null;
    }
    String level = heading.substring(0, heading.indexOf(' ') + 1);
    int end = doc.indexOf("\n" + level, start + heading.length());
    int higher = level.length() > 3 ? doc.indexOf("\n## ", start + heading.length()) : -1;
    if (higher >= 0 && (end < 0 || higher < end)) {
      end = higher;
    }
    return end < 0 ? doc.substring(start) : doc.substring(start, end);
  }
}
