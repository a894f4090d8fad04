package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.metrics.Meters;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;

/** The Grafana and Prometheus files are consistent with each other and with the code, without any server. */
class GrafanaProvisioningTest {

  @Test
  void thereAreTheFourDashboardsEachValidWithUniquePanelIds() {
    assertThat(GrafanaFiles.dashboards().stream().map(p -> p.getFileName().toString()))
        .containsExactlyInAnyOrder("fleet.json", "migration-drilldown.json", "impact-history.json",
            "utilization-audit.json");
    Set<String> uids = new HashSet<>();
    for (Path p : GrafanaFiles.dashboards()) {
      JsonNode d = GrafanaFiles.dashboard(p);
      assertThat(uids.add(d.path("uid").asText())).as("unique dashboard uid in " + p).isTrue();
      List<Integer> ids = new ArrayList<>();
      d.path("panels").forEach(panel -> ids.add(panel.path("id").asInt(-1)));
      assertThat(ids).as("panel ids of " + p).doesNotHaveDuplicates().doesNotContain(-1).isNotEmpty();
    }
  }

  @Test
  void noTwoPanelsOfADashboardOverlapAndEveryPanelFitsTheGrid() {
    for (Path p : GrafanaFiles.dashboards()) {
      List<JsonNode> panels = new java.util.ArrayList<>();
      GrafanaFiles.dashboard(p).path("panels").forEach(panels::add);
      for (int i = 0; i < panels.size(); i++) {
        JsonNode a = panels.get(i).path("gridPos");
        assertThat(a.path("x").asInt() + a.path("w").asInt()).as(p.getFileName() + ": " + title(panels.get(i))
            + " within the 24 columns").isLessThanOrEqualTo(24);
        for (int j = i + 1; j < panels.size(); j++) {
          JsonNode b = panels.get(j).path("gridPos");
          boolean overlap = a.path("x").asInt() < b.path("x").asInt() + b.path("w").asInt()
              && b.path("x").asInt() < a.path("x").asInt() + a.path("w").asInt()
              && a.path("y").asInt() < b.path("y").asInt() + b.path("h").asInt()
              && b.path("y").asInt() < a.path("y").asInt() + a.path("h").asInt();
          assertThat(overlap).as(p.getFileName() + ": " + title(panels.get(i)) + " " + a + " and "
              + title(panels.get(j)) + " " + b + " overlap").isFalse();
        }
      }
    }
  }

  @Test
  void everyInfinityVariableUsesThePluginsVariableQueryModel() {
    // Infinity 2.x (src/types/variables.types.ts): { queryType: 'infinity', refId, infinityQuery: InfinityQuery };
    // a data query at the top level is read as nothing, and the variable stays empty
    int checked = 0;
    for (Path p : GrafanaFiles.dashboards()) {
      for (JsonNode v : GrafanaFiles.dashboard(p).path("templating").path("list")) {
        if (!"yesoreyeram-infinity-datasource".equals(v.path("datasource").path("type").asText())) {
          continue;
        }
        JsonNode q = v.path("query");
        assertThat(q.path("queryType").asText()).as(p.getFileName() + " $" + v.path("name").asText())
            .isEqualTo("infinity");
        JsonNode inner = q.path("infinityQuery");
        assertThat(inner.path("type").asText()).as("infinityQuery.type").isIn("json", "csv", "uql");
        assertThat(inner.path("source").asText()).as("infinityQuery.source").isEqualTo("url");
        assertThat(inner.path("url").asText()).as("infinityQuery.url").startsWith("/api/");
        assertThat(inner.path("columns")).as("infinityQuery.columns").isNotEmpty();
        inner.path("columns").forEach(c -> assertThat(c.path("type").asText())
            .isIn("string", "number", "timestamp", "timestamp_epoch", "timestamp_epoch_s"));
        checked++;
      }
    }
    assertThat(checked).as("the drill-down's migration variable").isPositive();
  }

  private static String title(JsonNode panel) {
    return "'" + panel.path("title").asText() + "'";
  }

  @Test
  void everyQueryUsesAProvisionedDatasource() {
    List<String> provisioned = GrafanaFiles.datasourceUids();
    for (Path p : GrafanaFiles.dashboards()) {
      for (GrafanaFiles.Query q : GrafanaFiles.queries(p)) {
        assertThat(q.datasourceUid()).as(q.where()).isIn(provisioned);
      }
      GrafanaFiles.dashboard(p).path("panels").forEach(panel -> assertThat(panel.path("datasource").path("uid")
          .asText()).as(p + " panel " + panel.path("title")).isIn(provisioned));
    }
  }

  @Test
  void everyTimeSeriesDashboardShowsMigrationsAsAnnotationsFromTheApi() {
    for (Path p : GrafanaFiles.dashboards()) {
      JsonNode d = GrafanaFiles.dashboard(p);
      boolean timeSeries = false;
      for (JsonNode panel : d.path("panels")) {
        timeSeries |= panel.path("type").asText().equals("timeseries");
      }
      if (timeSeries) {
        assertThat(GrafanaFiles.queries(p)).as(p.toString()).anyMatch(q -> q.where().contains("annotation")
            && q.target().path("url").asText().equals("/api/grafana/annotations"));
      }
    }
  }

  @Test
  void everyMetricQueriedIsAMeterStunwatchExposes() throws Exception {
    Set<String> exposed = new HashSet<>();
    for (Field f : Meters.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getName().chars().allMatch(c -> c == '_' || Character.isUpperCase(c)
          || Character.isDigit(c)) && !f.getName().startsWith("TAG_")) {
        exposed.add(((String) f.get(null)).replace('.', '_'));
      }
    }
    List<String> expressions = new ArrayList<>(GrafanaFiles.prometheusRules().values());
    for (Path p : GrafanaFiles.dashboards()) {
      GrafanaFiles.queries(p).stream().filter(GrafanaFiles.Query::prometheus)
          .forEach(q -> expressions.add(q.target().path("expr").asText()));
    }
    assertThat(expressions).hasSizeGreaterThan(20);
    for (String e : expressions) {
      for (String metric : GrafanaFiles.stunwatchMetrics(e)) {
        String base = metric.replaceAll("_(total|bucket|sum|count|max)$", "");
        assertThat(exposed).as(metric + " in " + e).contains(base);
      }
    }
  }

  @Test
  void everyApiUrlIsARouteOfTheOpenApiDocument() throws Exception {
    JsonNode openapi;
    try (var in = io.stunwatch.api.ApiServer.class.getResourceAsStream("/io/stunwatch/api/openapi.json")) {
      openapi = GrafanaFiles.JSON.readTree(in);
    }
    List<String> templates = new ArrayList<>();
    openapi.path("paths").fieldNames().forEachRemaining(templates::add);
    for (Path p : GrafanaFiles.dashboards()) {
      for (GrafanaFiles.Query q : GrafanaFiles.queries(p)) {
        if (!q.apiUrl()) {
          continue;
        }
        String url = q.target().path("url").asText();
        assertThat(templates).as(q.where() + ": " + url)
            .anyMatch(t -> url.matches(t.replaceAll("\\{[^}]+}", "[^/]+")));
      }
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void grafanaAlertRulesAreThePrometheusRulesWithTheSameExpressionsAndThresholds() {
    Map<String, String> prometheus = GrafanaFiles.prometheusRules();
    assertThat(prometheus.keySet()).containsExactlyInAnyOrder("StunwatchMigrationUnderLoad",
        "StunwatchStunTimeHigh", "StunwatchCollectorSilent", "StunwatchCheckpointStale",
        "StunwatchDeadLettersGrowing");
    List<Map<String, Object>> groups = (List<Map<String, Object>>) GrafanaFiles.yaml(
        "grafana/provisioning/alerting/stunwatch.yml").get("groups");
    Map<String, Map<String, Object>> grafana = new java.util.HashMap<>();
    for (Map<String, Object> g : groups) {
      for (Map<String, Object> r : (List<Map<String, Object>>) g.get("rules")) {
        grafana.put((String) r.get("title"), r);
      }
    }
    assertThat(grafana.keySet()).isEqualTo(prometheus.keySet());
    prometheus.forEach((name, expr) -> {
      Matcher m = GrafanaFiles.THRESHOLD.matcher(expr);
      assertThat(m.matches()).as(name + " is '<signal> > <threshold>'").isTrue();
      List<Map<String, Object>> data = (List<Map<String, Object>>) grafana.get(name).get("data");
      Map<String, Object> a = (Map<String, Object>) data.get(0).get("model");
      Map<String, Object> c = (Map<String, Object>) data.get(1).get("model");
      assertThat(data.get(0).get("datasourceUid")).isIn(GrafanaFiles.datasourceUids());
      assertThat(a.get("expr")).as(name).isEqualTo(m.group(1));
      var evaluator = (Map<String, Object>) ((List<Map<String, Object>>) c.get("conditions")).get(0).get("evaluator");
      assertThat(evaluator.get("type")).isEqualTo("gt");
      assertThat(((List<Number>) evaluator.get("params")).get(0).doubleValue()).as(name)
          .isEqualTo(Double.parseDouble(m.group(2)));
    });
  }
}
