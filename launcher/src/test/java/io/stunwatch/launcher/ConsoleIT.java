package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.model.json.Json;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.RealPeers;
import io.stunwatch.testsupport.StunwatchProcess;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The built-in console in a real headless Chromium against a running {@code stunwatch demo}: sign in with the token,
 * list migrations, filter the ones under load, open one, and find its chart drawn with every stored point and the
 * stun marked; then the alerts, utilization and plan pages. Any JavaScript error, console error (a CSP violation
 * among them) or failed request on any page fails it. Screenshots of each page are kept in
 * {@code target/console-screenshots/}.
 */
class ConsoleIT {

  static final Path SHOTS = Path.of("target", "console-screenshots");

  @TempDir
  Path dir;

  final HttpClient http = HttpClient.newHttpClient();

  @Test
  void signInListFilterOpenAMigrationAndSeeItsChartWithTheStunMarked() throws Exception {
    Path chromium = RealPeers.chromium();
    Path data = dir.resolve("demo");
    try (StunwatchProcess demo = StunwatchProcess.start("demo", "--speed", "60", "--history", "1h", "--port", "0",
        "--data-dir", data.toString(), "--duration", "10m", "--summary-every", "5s")) {
      String url = demo.awaitStdout("^" + Pattern.quote(DemoCommand.READY_LINE) + "(\\S+)$",
          Duration.ofSeconds(120)).group(1);
      String token = Files.readString(data.resolve("api-token")).trim();

      // a settled migration under load, with its per-second timeline and a stun from its vmware.log (a fifth of the
      // fleet's migrations log none, and have the estimate from the gap in their samples), to open in the page
      JsonNode[] settled = {null};
      Await.until(Duration.ofSeconds(240), Duration.ofSeconds(1), () -> {
        try {
          for (JsonNode m : api(url, token, "/api/migrations?underLoad=true&limit=50")) {
            if (m.path("stun").hasNonNull("seconds")
                && "VMWARE_LOG".equals(m.path("stun").path("source").asText())) {
              JsonNode impact = api(url, token, "/api/migrations/" + enc(m.path("migration").path("id").asText()));
              if (impact.path("timeline").size() > 0 && impact.path("migration").hasNonNull("endTime")
                  && impact.path("phases").hasNonNull("stunStart") && impact.hasNonNull("vmotionBandwidthMBps")) {
                settled[0] = impact;
                return true;
              }
            }
          }
        } catch (Exception e) {
          return false; // 503 until the stores are ready
        }
        return false;
      }, "a settled migration under load, with its vMotion's phases and bandwidth",
          () -> String.join("\n", demo.stdout()));
      String id = settled[0].path("migration").path("id").asText();
      int points = settled[0].path("timeline").size();

      try (HeadlessChromium browser = HeadlessChromium.start(chromium, dir)) {
        browser.navigate(url + "/");
        browser.await("document.querySelector('#login')", Duration.ofSeconds(30), "the sign-in form");
        browser.screenshot(SHOTS.resolve("sign-in.png"));
        browser.eval("document.querySelector('#token').value = '" + token + "';"
            + "document.querySelector('#login').requestSubmit()");
        browser.await("document.querySelectorAll('#migrations tbody tr').length > 0", Duration.ofSeconds(30),
            "the migrations listed");
        assertThat(browser.eval("sessionStorage.getItem('stunwatch.token') === '" + token + "'").asBoolean())
            .as("the token kept in the tab's session storage").isTrue();
        browser.screenshot(SHOTS.resolve("migrations.png"));
        // the demo's VMs without a guest worker are listed as seen by their hosts
        assertThat(browser.eval("[...document.querySelectorAll('#migrations thead th')].map(h => h.textContent)"
            + ".includes('load seen by')").asBoolean()).as("a 'load seen by' column").isTrue();

        browser.eval("document.querySelector('#under-load').checked = true;"
            + "document.querySelector('#filters').requestSubmit()");
        browser.await("location.hash.includes('underLoad=true') && document.querySelector('#migrations') "
            + "&& [...document.querySelectorAll('#migrations tbody tr')].length > 0", Duration.ofSeconds(30),
            "the migrations under load");
        assertThat(browser.eval("[...document.querySelectorAll('#migrations tbody tr')]"
            + ".every(r => r.textContent.includes('under load'))").asBoolean()).as("only those under load").isTrue();
        browser.screenshot(SHOTS.resolve("migrations-under-load.png"));

        // open the settled one: from its row when the page lists it, else by its address
        String row = "document.querySelector('#migrations tbody tr[data-key=\"' + CSS.escape('" + id + "') + '\"]')";
        if (browser.eval("!!" + row).asBoolean()) {
          browser.eval(row + ".click()");
        } else {
          browser.eval("location.hash = '#/migration/' + encodeURIComponent('" + id + "')");
        }
        browser.await("document.querySelector('#timeline') && document.querySelector('#timeline').dataset.stunMarked"
            + " === 'true' && document.querySelectorAll('#timeline canvas').length === 2", Duration.ofSeconds(30),
            "the migration's chart with its stun marked");
        assertThat(browser.eval("Number(document.querySelector('#timeline').dataset.points)").asInt())
            .as("every stored point of the timeline").isEqualTo(points);
        assertThat(browser.eval("document.querySelector('main h1').textContent").asText())
            .endsWith(settled[0].path("migration").path("vmName").asText());
        assertThat(browser.eval("document.querySelector('#summary').textContent").asText()).contains("vmware.log")
            .contains(settled[0].path("migration").path("initiator").asText())
            .contains("vMotion id" + settled[0].path("vmotionId").asText());
        // the phases and the bandwidth as the page words them, to its one decimal
        assertThat(browser.eval("Number(document.querySelector('#summary').textContent.match(/precopy ([0-9.]+) s/)[1])")
            .asDouble()).isCloseTo(settled[0].path("phases").path("precopySeconds").asDouble(), within(0.051));
        assertThat(browser.eval("Number(document.querySelector('#summary').textContent.match(/([0-9.]+) MB\\/s/)[1])")
            .asDouble()).isCloseTo(settled[0].path("vmotionBandwidthMBps").asDouble(), within(0.051));
        // the precopy and the stop of the vCPUs shaded where the logs put them
        assertThat(Instant.parse(browser.eval("document.querySelector('#timeline').dataset.precopyFrom").asText()))
            .isEqualTo(Instant.parse(settled[0].path("phases").path("precopyStart").asText()));
        assertThat(Instant.parse(browser.eval("document.querySelector('#timeline').dataset.stopTo").asText()))
            .isEqualTo(Instant.parse(settled[0].path("phases").path("stunned").asText()));
        browser.screenshot(SHOTS.resolve("migration.png"));

        browser.eval("location.hash = '#/alerts'");
        browser.await("document.querySelectorAll('main table tbody tr').length > 0", Duration.ofSeconds(30),
            "the alerts listed");
        browser.screenshot(SHOTS.resolve("alerts.png"));
        browser.eval("location.hash = '#/utilization'");
        browser.await("document.querySelectorAll('main table').length === 2 "
            + "&& document.querySelectorAll('main table tbody tr').length > 0", Duration.ofSeconds(30),
            "the utilization tables");
        browser.screenshot(SHOTS.resolve("utilization.png"));
        // the demo runs the DRS guard: the VMs it protects, by name, and the audit trail of the demo's vCenter
        String protectedVms = "document.querySelectorAll('main table').length === 2 ? "
            + "document.querySelectorAll('main table')[0].querySelectorAll('tbody tr').length : -1";
        String trail = "document.querySelectorAll('main table').length === 2 ? "
            + "document.querySelectorAll('main table')[1].querySelectorAll('tbody tr').length : -1";
        String names = "[...document.querySelectorAll('main table')[0].querySelectorAll('tbody tr')]"
            + ".map(r => r.cells[0].textContent).join(',')";
        int[] reloads = {0};
        Await.until(Duration.ofSeconds(90), () -> {
          try {
            browser.eval("location.hash = '#/guard?reload=" + reloads[0]++ + "'");
            browser.await("document.querySelector('#guard-status')", Duration.ofSeconds(30), "the guard's page");
            // a VM the processor protects before the demo's vCenter has acted on it has no name yet: its id
            return browser.eval(protectedVms).asInt() > 0 && browser.eval(trail).asInt() > 0
                && browser.eval(names).asText().matches("gpu-vm-\\d+(,gpu-vm-\\d+)*");
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }, "protected VMs, by the names their audit trail gives them, on the guard's page", () -> {
          try {
            return "protected rows " + browser.eval(protectedVms).asInt() + ", trail rows " + browser.eval(trail).asInt()
                + ", names '" + browser.eval(names).asText() + "'";
          } catch (Exception e) {
            return e.toString();
          }
        });
        assertThat(browser.eval("document.querySelector('#guard-status').textContent").asText())
            .startsWith("DRS leaves a busy VM where it is").contains("protected now");
        assertThat(browser.eval("document.querySelectorAll('main table')[1].querySelector('tbody tr')"
            + ".cells[3].textContent").asText()).isEqualTo("applied");
        browser.screenshot(SHOTS.resolve("guard.png"));
        String host = api(url, token, "/api/vms/" + settled[0].path("migration").path("vmId").asText()
            + "/migrate-check").path("host").asText();
        browser.eval("location.hash = '#/plan?host=' + encodeURIComponent('" + host + "')");
        browser.await("document.querySelectorAll('main table tbody tr').length > 0", Duration.ofSeconds(30),
            "the evacuation plan of " + host);
        browser.screenshot(SHOTS.resolve("plan.png"));

        assertThat(browser.problems()).as("JavaScript errors and failed requests").isEmpty();
      }
    }
  }

  private JsonNode api(String url, String token, String path) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url + path))
        .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException(path + ": " + r.statusCode());
    }
    return Json.mapper().readTree(r.body());
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
