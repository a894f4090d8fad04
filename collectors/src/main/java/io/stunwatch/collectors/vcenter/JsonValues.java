package io.stunwatch.collectors.vcenter;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.collectors.worker.ReplayKind;
import io.stunwatch.collectors.worker.ReplayRefusedException;
import io.stunwatch.model.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The JSON values of a recorded vCenter file, whatever their layout: one per line (VI/JSON as the collector writes
 * it), pretty-printed back to back (VMware's event router, {@code govc events -json}), or in arrays. A value that is
 * not well-formed is named by its line and the rest is read; a file that is no JSON at all is refused.
 */
final class JsonValues {

  private JsonValues() {
  }

  /** Reads one value of many: the project's mapper refuses what follows a value, which here is the next one. */
  private static final com.fasterxml.jackson.databind.ObjectReader VALUES = Json.mapper().reader()
      .without(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  /** One JSON value of a file and the line it starts on, or what was wrong there. */
  record Value(JsonNode node, long line, InputParseException error) {
  }

  /**
   * Every JSON value of a file, back to back. A value that is not well-formed is reported at its line and reading
   * resumes at the next line that opens a value at its first column.
   */
  static List<Value> read(Path file) throws IOException {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (java.nio.charset.MalformedInputException e) {
      throw new ReplayRefusedException("not text", "vCenter events and inventory are UTF-8 JSON; this file is "
          + "binary, or text in another encoding");
    }
    String first = text.stripLeading();
    String opening = first.lines().findFirst().orElse("");
    // "[Wed Dec  6 ..." opens like a JSON array: the govc text form is told first
    if (ReplayKind.GOVC_EVENT.matcher(opening).matches()) {
      throw ReplayKind.govcEventsRefusal();
    }
    if (!first.isEmpty() && first.charAt(0) != '{' && first.charAt(0) != '[') {
      throw new ReplayRefusedException("not JSON", "vCenter events and inventory are replayed from VI/JSON or "
          + "govmomi JSON; the file starts '" + InputParseException.quote(opening, 60) + "'");
    }
    List<Value> out = new ArrayList<>();
    int offset = 0;
    long lineBase = 0;
    while (offset < text.length()) {
      String rest = text.substring(offset);
      try (JsonParser p = Json.mapper().getFactory().createParser(rest)) {
        while (true) {
          JsonToken t = p.nextToken();
          if (t == null) {
            return out;
          }
          long line = lineBase + p.currentTokenLocation().getLineNr();
          out.add(new Value(VALUES.readTree(p), line, null));
        }
      } catch (JsonProcessingException e) {
        long line = lineBase + (e.getLocation() == null ? 1 : e.getLocation().getLineNr());
        out.add(new Value(null, line, new InputParseException(file.toString(), line, "not JSON: "
            + e.getOriginalMessage())));
        // resume at the next line that opens a value at its first column
        int from = offset + lineOffset(rest, (int) (line - lineBase));
        int next = nextValueStart(text, from);
        if (next < 0) {
          return out;
        }
        lineBase += countLines(text, offset, next);
        offset = next;
      }
    }
    return out;
  }

  /** The offset in {@code s} of the start of its {@code line}th line (1-based), past the end when there is none. */
  private static int lineOffset(String s, int line) {
    int at = 0;
    for (int n = 1; n < line && at >= 0; n++) {
      at = s.indexOf('\n', at);
      at = at < 0 ? -1 : at + 1;
    }
    return at < 0 ? s.length() : at;
  }

  private static int nextValueStart(String text, int from) {
    int at = text.indexOf('\n', from);
    while (at >= 0 && at + 1 < text.length()) {
      char c = text.charAt(at + 1);
      if (c == '{' || c == '[') {
        return at + 1;
      }
      at = text.indexOf('\n', at + 1);
    }
    return -1;
  }

  private static long countLines(String text, int from, int to) {
    long n = 0;
    for (int i = from; i < to; i++) {
      if (text.charAt(i) == '\n') {
        n++;
      }
    }
    return n;
  }

  /** The events of one value: itself, or the elements of an array. */
  static List<JsonNode> unwrap(JsonNode node) {
    List<JsonNode> out = new ArrayList<>();
    if (node.isArray()) {
      node.forEach(out::add);
    } else {
      out.add(node);
    }
    return out;
  }

}
