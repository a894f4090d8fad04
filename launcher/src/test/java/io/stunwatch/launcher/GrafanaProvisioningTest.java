package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.stunwatch.api.ApiServer;
import io.stunwatch.api.metrics.FleetGauges;
import io.stunwatch.metrics.Meters;
import io.stunwatch.model.Initiator;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.StunTime;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.json.Json;
import io.stunwatch.processor.readmodel.CurrentLoad;
import io.stunwatch.processor.readmodel.MigrationAnnotation;
import io.stunwatch.processor.readmodel.MigrationSummary;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
      List<JsonNode> panels = new ArrayList<>();
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
  void everyAnnotationColumnHasTheTypeOfWhatTheApiAnswersAtItsSelector() throws Exception {
    // Infinity's backend parser (gframer) turns an array into a JSON string whatever the column says, and Grafana
    // splits a string tags field on commas: an array read as "string" becomes the tags `["vmotion"` and `"drs"]`.
    Instant start = Instant.parse("2026-11-20T10:00:00Z");
    MigrationSummary s = new MigrationSummary(
        new Migration("vc-1/chain-42", "vc-1", "vm-42", "trainer-01",
            "4211c0de-0001-aaaa-bbbb-ccccddddeeee", "T4-16C", MigrationState.SUCCEEDED,
            Initiator.DRS, "DRS", Boolean.TRUE, null, null, null, null, null, null, start,
            start.plusSeconds(95), null, start.plusSeconds(96)),
        true, new StunTime(31.5, StunTime.Source.VMWARE_LOG), null, null);
    JsonNode answer = GrafanaFiles.JSON.readTree(Json.mapper()
        .writeValueAsString(MigrationAnnotation.of(s)));
    int checked = 0;
    for (Path p : GrafanaFiles.dashboards()) {
      for (GrafanaFiles.Query q : GrafanaFiles.queries(p)) {
        if (!q.target().path("url").asText().equals("/api/grafana/annotations")) {
          continue;
        }
        for (JsonNode c : q.target().path("columns")) {
          JsonNode v = answer.path(c.path("selector").asText());
          String as = q.where() + " column " + c.path("selector").asText() + " (" + c.path("type").asText() + ")";
          assertThat(v.isMissingNode()).as(as + " is in the answer " + answer).isFalse();
          switch (c.path("type").asText()) {
            case "string" -> assertThat(v.isTextual()).as(as + " is text, not " + v).isTrue();
            case "number", "timestamp_epoch", "timestamp_epoch_s" -> assertThat(v.isNumber()).as(as).isTrue();
            default -> throw new AssertionError(as + ": a type the annotation does not use");
          }
          checked++;
        }
        assertThat(q.target().path("columns").findValuesAsText("text")).as(q.where())
            .contains("time", "timeEnd", "title", "text", "tags");
      }
    }
    assertThat(checked).isGreaterThanOrEqualTo(20);
    assertThat(answer.path("tagsJoined").asText().split(",")).as("Grafana's split of the tags")
        .containsExactly("vmotion", "drs", "succeeded", "under-load");
  }

  @Test
  void everyDatasourceIsATemplateVariableSoTheDashboardsImportIntoAnyGrafana() throws Exception {
    // A dashboard imported into an existing Grafana finds no datasource of our provisioned uids: each query names
    // a datasource variable of its type, whose first value is the __inputs entry an import asks for.
    List<String> provisioned = GrafanaFiles.datasourceUids();
    for (Path p : GrafanaFiles.dashboards()) {
      JsonNode d = GrafanaFiles.dashboard(p);
      Map<String, String> dsVariables = new HashMap<>();
      for (JsonNode v : d.path("templating").path("list")) {
        if (v.path("type").asText().equals("datasource")) {
          dsVariables.put(v.path("name").asText(), v.path("query").asText());
        }
      }
      List<JsonNode> refs = d.findValues("datasource");
      assertThat(refs).as(p.toString()).isNotEmpty();
      for (JsonNode ref : refs) {
        String uid = ref.path("uid").asText();
        if (ref.path("type").asText().equals("grafana")) {
          continue; // Grafana's built-in annotations
        }
        assertThat(provisioned).as(p.getFileName() + ": " + ref).doesNotContain(uid);
        Matcher m = Pattern.compile("\\$\\{([a-z_]+)}").matcher(uid);
        assertThat(m.matches()).as(p.getFileName() + ": " + ref + " names a variable").isTrue();
        assertThat(dsVariables.get(m.group(1))).as(p.getFileName() + ": " + ref + " is a datasource variable of its type")
            .isEqualTo(ref.path("type").asText());
      }
      Map<String, String> inputs = new HashMap<>();
      d.path("__inputs").forEach(i -> inputs.put(i.path("name").asText(), i.path("pluginId").asText()));
      assertThat(inputs).as(p + " __inputs").isNotEmpty();
      String text = GrafanaFiles.JSON.writeValueAsString(d);
      Set<String> referenced = new HashSet<>();
      Matcher m = Pattern.compile("\\$\\{(DS_[A-Z_]+)}").matcher(text);
      while (m.find()) {
        referenced.add(m.group(1));
      }
      assertThat(referenced).as(p + ": every input is used, every one used is declared").isEqualTo(inputs.keySet());
      for (JsonNode v : d.path("templating").path("list")) {
        if (v.path("type").asText().equals("datasource")) {
          String input = v.path("current").path("value").asText().replaceAll("^\\$\\{|}$", "");
          assertThat(inputs.get(input)).as(p + " $" + v.path("name").asText() + " starts at the input of its type")
              .isEqualTo(v.path("query").asText());
        }
      }
    }
  }

  @Test
  void theFleetDashboardNarrowsByVcenterClusterHostAndVmOnLabelsThePerVmGaugesCarry() throws Exception {
    JsonNode fleet = GrafanaFiles.dashboard(GrafanaFiles.root().resolve("grafana/dashboards/fleet.json"));
    List<String> names = new ArrayList<>();
    fleet.path("templating").path("list").forEach(v -> {
      if (v.path("type").asText().equals("query")) {
        names.add(v.path("name").asText());
      }
    });
    // and one host to plan the evacuation of: a choice, not a filter
    assertThat(names).containsExactly(Meters.TAG_VCENTER, Meters.TAG_CLUSTER, Meters.TAG_HOST, Meters.TAG_VM,
        "evacuate");
    // the labels are those FleetGauges writes on every per-VM series, vm_id among them
    Class<?> gauges = FleetGauges.class;
    Method tags = gauges.getDeclaredMethod("tags", CurrentLoad.class,
        VmInventoryEntry.class);
    tags.setAccessible(true);
    Tags written = (Tags) tags.invoke(null,
        new CurrentLoad("4211c0de-0001-aaaa-bbbb-ccccddddeeee", Map.of(), null, null, false),
        null);
    assertThat(written.stream().map(Tag::getKey))
        .containsExactlyInAnyOrder(Meters.TAG_VM, Meters.TAG_VM_ID, Meters.TAG_HOST, Meters.TAG_CLUSTER,
            Meters.TAG_VCENTER);
    String perVm = "\\bstunwatch_vm_[a-z_]+";
    int filtered = 0;
    for (GrafanaFiles.Query q : GrafanaFiles.queries(GrafanaFiles.root().resolve("grafana/dashboards/fleet.json"))) {
      Matcher m = Pattern.compile(perVm + "(\\{[^}]*})?").matcher(q.target().path("expr").asText());
      while (m.find()) {
        if (q.where().contains("variable")) {
          continue;
        }
        String selector = String.valueOf(m.group(1));
        for (String label : List.of(Meters.TAG_VCENTER, Meters.TAG_CLUSTER, Meters.TAG_HOST, Meters.TAG_VM)) {
          assertThat(selector).as(q.where() + ": " + m.group() + " narrowed by $" + label)
              .contains(label + "=~\"$" + label + "\"");
        }
        filtered++;
      }
    }
    assertThat(filtered).isGreaterThanOrEqualTo(6);
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
    try (var in = ApiServer.class.getResourceAsStream("/io/stunwatch/api/openapi.json")) {
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
        "StunwatchGuardDecisionsStopped", "StunwatchDeadLettersGrowing", "StunwatchTargetDown",
        "StunwatchApiNotScraped");
    List<Map<String, Object>> groups = (List<Map<String, Object>>) GrafanaFiles.yaml(
        "grafana/provisioning/alerting/stunwatch.yml").get("groups");
    Map<String, Map<String, Object>> grafana = new HashMap<>();
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
      String promFor = GrafanaFiles.prometheusRuleFor(name);
      assertThat(String.valueOf(grafana.get(name).get("for"))).as(name + " for")
          .isEqualTo(promFor == null ? "0s" : promFor);
    });
  }

  @Test
  @SuppressWarnings("unchecked")
  void aDeadApiOrPrometheusFiresAnAlert() {
    Map<String, String> prometheus = GrafanaFiles.prometheusRules();
    // every scrape job is covered by the up rule, and the API job by the absent rule
    Map<String, Object> config = GrafanaFiles.yaml("deploy/prometheus/prometheus.yml");
    Matcher up = Pattern.compile("up\\{job=~\"([^\"]+)\"}").matcher(prometheus.get("StunwatchTargetDown"));
    assertThat(up.find()).as("StunwatchTargetDown reads up by job").isTrue();
    List<String> jobs = new ArrayList<>();
    for (Map<String, Object> job : (List<Map<String, Object>>) config.get("scrape_configs")) {
      jobs.add((String) job.get("job_name"));
    }
    assertThat(jobs).contains("stunwatch-api", "stunwatch-vcenter-collector", "stunwatch-workers");
    for (String job : jobs) {
      assertThat(job).as("job " + job + " is watched by StunwatchTargetDown").matches(up.group(1));
    }
    assertThat(prometheus.get("StunwatchApiNotScraped")).contains("absent(up{job=\"stunwatch-api\"})");
    // in Grafana: a failing query (Prometheus down) raises DatasourceError; a series that exists while any API
    // is scraped turns NoData into an alert; a rule whose quiet state is no series must not
    List<Map<String, Object>> groups = (List<Map<String, Object>>) GrafanaFiles.yaml(
        "grafana/provisioning/alerting/stunwatch.yml").get("groups");
    Set<String> dashboardUids = new HashSet<>();
    GrafanaFiles.dashboards().forEach(p -> dashboardUids.add(GrafanaFiles.dashboard(p).path("uid").asText()));
    for (Map<String, Object> g : groups) {
      for (Map<String, Object> r : (List<Map<String, Object>>) g.get("rules")) {
        String title = (String) r.get("title");
        assertThat(r.get("execErrState")).as(title + " execErrState").isEqualTo("Error");
        assertThat(r.get("noDataState")).as(title + " noDataState")
            .isEqualTo(title.equals("StunwatchMigrationUnderLoad") ? "NoData" : "OK");
        assertThat(((Map<String, Object>) r.get("annotations")).get("__dashboardUid__")).as(title + " dashboard")
            .isIn(dashboardUids);
      }
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void dashboardsAndAlertRulesShareOneFolderNamedAsGrafanaResolvesIt() {
    // Grafana provisions alerting before dashboards and finds or creates a rule group's folder by its title
    // (rules_provisioner.go getOrCreateFolderByTitle); a dashboard provider with a folderUid looks the folder up
    // by that uid instead, does not find the rules' folder, and fails to create a second one of the same title.
    List<Map<String, Object>> providers = (List<Map<String, Object>>) GrafanaFiles.yaml(
        "grafana/provisioning/dashboards/stunwatch.yml").get("providers");
    assertThat(providers).hasSize(1);
    assertThat(providers.get(0)).doesNotContainKey("folderUid");
    Object folder = providers.get(0).get("folder");
    assertThat(folder).isNotNull();
    for (Map<String, Object> g : (List<Map<String, Object>>) GrafanaFiles.yaml(
        "grafana/provisioning/alerting/stunwatch.yml").get("groups")) {
      assertThat(g.get("folder")).as("group " + g.get("name")).isEqualTo(folder);
    }
  }
}
