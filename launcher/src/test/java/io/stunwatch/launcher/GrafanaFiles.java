package io.stunwatch.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.stunwatch.testsupport.SharedFixtures;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.yaml.snakeyaml.Yaml;

/**
 * Reads the repository's Grafana and Prometheus files the way Grafana and Prometheus do, for the tests that check
 * them: dashboards, their PromQL and API (Infinity) queries, provisioned datasources and both sets of alert rules.
 */
final class GrafanaFiles {

  static final ObjectMapper JSON = new ObjectMapper();
  /** Prometheus rules: {@code <left> > <threshold>}. */
  static final Pattern LABEL_VALUES = Pattern.compile("label_values\\((.+), *([a-z_]+)\\)");
  static final Pattern THRESHOLD = Pattern.compile("(.*) > (\\S+)");

  private GrafanaFiles() {
  }

  static Path root() {
    return SharedFixtures.repoRoot();
  }

  static List<Path> dashboards() {
    try (Stream<Path> s = Files.list(root().resolve("grafana/dashboards"))) {
      return s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode dashboard(Path p) {
    try {
      return JSON.readTree(p.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException(p + ": " + e.getMessage(), e);
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> yaml(String relative) {
    try (InputStream in = Files.newInputStream(root().resolve(relative))) {
      return new Yaml().load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A query of a dashboard: where it is, and its target node. */
  record Query(String where, JsonNode target) {
    String datasourceUid() {
      return target.path("datasource").path("uid").asText(null);
    }

    boolean prometheus() {
      return target.has("expr");
    }

    boolean apiUrl() {
      return "url".equals(target.path("source").asText());
    }
  }

  /** Every query of a dashboard: panel targets, annotation targets and template-variable queries. */
  static List<Query> queries(Path file) {
    JsonNode d = dashboard(file);
    String name = file.getFileName().toString();
    List<Query> out = new ArrayList<>();
    for (JsonNode p : d.path("panels")) {
      for (JsonNode t : p.path("targets")) {
        out.add(new Query(name + " panel " + p.path("id") + " '" + p.path("title").asText() + "' "
            + t.path("refId").asText(), t));
      }
    }
    for (JsonNode a : d.path("annotations").path("list")) {
      if (a.has("target")) {
        out.add(new Query(name + " annotation '" + a.path("name").asText() + "'", a.get("target")));
      }
    }
    for (JsonNode v : d.path("templating").path("list")) {
      if (v.path("query").path("infinityQuery").isObject()) { // the Infinity plugin's variable query model
        out.add(new Query(name + " variable '" + v.path("name").asText() + "'", v.get("query").get("infinityQuery")));
      } else if ("prometheus".equals(v.path("datasource").path("type").asText())) {
        // label_values(<selector>, <label>) has data when some series of <selector> carries <label>
        Matcher m = LABEL_VALUES.matcher(v.path("query").path("query").asText());
        if (!m.matches()) {
          throw new AssertionError(name + " variable " + v.path("name") + ": not label_values(<selector>, <label>)");
        }
        ObjectNode target = JSON.createObjectNode();
        target.set("datasource", v.path("datasource"));
        String selector = m.group(1).contains("{") ? m.group(1).replaceFirst("}$", "," + m.group(2) + "!=\"\"}")
            : m.group(1) + "{" + m.group(2) + "!=\"\"}";
        target.put("expr", "group by (" + m.group(2) + ") (" + selector + ")");
        out.add(new Query(name + " variable '" + v.path("name").asText() + "'", target));
      } else if (v.path("query").isObject()) {
        out.add(new Query(name + " variable '" + v.path("name").asText() + "'", v.get("query")));
      }
    }
    return out;
  }

  /** The uids of the provisioned datasources. */
  @SuppressWarnings("unchecked")
  static List<String> datasourceUids() {
    List<Map<String, Object>> ds = (List<Map<String, Object>>) yaml("grafana/provisioning/datasources/stunwatch.yml")
        .get("datasources");
    return ds.stream().map(m -> (String) m.get("uid")).toList();
  }

  /** Prometheus alert rules: name → expression. */
  @SuppressWarnings("unchecked")
  static Map<String, String> prometheusRules() {
    Map<String, String> out = new LinkedHashMap<>();
    for (Map<String, Object> g : (List<Map<String, Object>>) yaml("prometheus/rules.yml").get("groups")) {
      for (Map<String, Object> r : (List<Map<String, Object>>) g.get("rules")) {
        out.put((String) r.get("alert"), (String) r.get("expr"));
      }
    }
    return out;
  }

  /** A Prometheus alert rule's {@code for}, or null when it has none. */
  @SuppressWarnings("unchecked")
  static String prometheusRuleFor(String alert) {
    for (Map<String, Object> g : (List<Map<String, Object>>) yaml("prometheus/rules.yml").get("groups")) {
      for (Map<String, Object> r : (List<Map<String, Object>>) g.get("rules")) {
        if (alert.equals(r.get("alert"))) {
          return (String) r.get("for");
        }
      }
    }
    throw new IllegalArgumentException("no Prometheus rule " + alert);
  }

  /** The PromQL to evaluate for an expression: a rule's signal without its threshold, dashboard ranges fixed. */
  static String evaluable(String expr) {
    Matcher m = THRESHOLD.matcher(expr);
    String e = m.matches() ? m.group(1) : expr;
    return e.replace("$__rate_interval", "1m").replace("$__range", "1h").replace("$__interval", "15s")
        .replaceAll("=~\"\\$[a-z_]+\"", "=~\".*\""); // a variable at All, as the dashboard opens
  }

  /** Every {@code stunwatch_*} metric name an expression uses. */
  static List<String> stunwatchMetrics(String expr) {
    List<String> out = new ArrayList<>();
    Matcher m = Pattern.compile("\\bstunwatch_[a-z_]+").matcher(expr);
    while (m.find()) {
      out.add(m.group());
    }
    return out;
  }
}
