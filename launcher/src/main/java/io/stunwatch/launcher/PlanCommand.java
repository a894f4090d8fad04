package io.stunwatch.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.api.ApiConfig;
import io.stunwatch.config.ConfigReader;
import io.stunwatch.model.json.Json;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code stunwatch plan}: asks a running API what a move would do, and prints it for a person (or, with
 * {@code --json}, the API's answer as it came). The token is {@code api.token}, as the API reads it
 * ({@code STUNWATCH_API_TOKEN_FILE}, {@code STUNWATCH_API_TOKEN} or the configuration file), never an argument.
 */
@Command(name = "plan", mixinStandardHelpOptions = true,
    description = {"Plan a move before making it, from a running Stunwatch API."},
    subcommands = {PlanCommand.Evacuate.class, PlanCommand.Check.class})
final class PlanCommand implements Runnable {

  /** The exit status of {@code plan check} when the move is not safe now. */
  static final int NOT_SAFE = 3;

  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "missing command: evacuate or check");
  }

  /** Where the API is and how to call it. */
  static final class ApiOptions {
    @Option(names = "--api", paramLabel = "URL", defaultValue = "http://127.0.0.1:8080",
        description = "The Stunwatch API (default ${DEFAULT-VALUE}); https is verified against the JVM's CAs.")
    URI api;

    @Option(names = "--json", description = "Print the API's JSON answer instead of a table.")
    boolean json;

    @Mixin
    ConfigOption config;

    /** GETs {@code path} with the token; the body, or an exception naming the status and the API's reason. */
    JsonNode get(LaunchContext ctx, String path) throws IOException, InterruptedException {
      ConfigReader r = config.load(ctx).reader();
      String token = r.get(ApiConfig.TOKEN);
      if (token == null) {
        throw new IllegalArgumentException("api.token is not set: give it as STUNWATCH_API_TOKEN_FILE (a file), "
            + "STUNWATCH_API_TOKEN or in --config");
      }
      HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
      URI uri = api.resolve(path);
      HttpResponse<String> res = client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
          .header("Authorization", "Bearer " + token).GET().build(), HttpResponse.BodyHandlers.ofString());
      if (res.statusCode() != 200) {
        String reason = res.body();
        try {
          reason = Json.mapper().readTree(res.body()).path("reason").asText(reason);
        } catch (IOException notJson) {
          // the body as it came
        }
        throw new IOException("GET " + uri + ": HTTP " + res.statusCode() + ": " + reason);
      }
      return Json.mapper().readTree(res.body());
    }
  }

  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** {@code stunwatch plan evacuate HOST}. */
  @Command(name = "evacuate", mixinStandardHelpOptions = true,
      description = {"What putting HOST into maintenance mode would do to its GPU VMs: each VM with its load, stun "
          + "forecast (p50/p95, with what it rests on) and expected migration time, in the suggested order (idle "
          + "first, busy last, a busy VM whose stun would pass api.plan.max-stun deferred), and the totals.",
          "Reads GET /api/hosts/{host}/evacuation."})
  static final class Evacuate implements Callable<Integer> {
    private final LaunchContext ctx;

    @Parameters(index = "0", paramLabel = "HOST", description = "ESXi host name, as the inventory names it.")
    String host;

    @Mixin
    ApiOptions options;

    Evacuate(LaunchContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() throws Exception {
      JsonNode plan;
      try {
        plan = options.get(ctx, "/api/hosts/" + enc(host) + "/evacuation");
      } catch (IOException | IllegalArgumentException e) {
        ctx.err().println("stunwatch plan evacuate: " + e.getMessage());
        return ExitCodes.FAILED;
      }
      PrintWriter out = ctx.out();
      if (options.json) {
        out.println(Json.mapper().writeValueAsString(plan));
        out.flush();
        return ExitCodes.OK;
      }
      out.printf("Evacuation of %s at %s (stun limit %d s, switchover limit %d s)%n", plan.path("host").asText(),
          plan.path("at").asText(), plan.path("maxStunSeconds").asLong(), plan.path("switchoverLimitSeconds").asLong());
      out.printf("%3s  %-10s  %-18s  %-9s  %9s  %5s  %15s  %-17s  %9s  %s%n", "#", "ACTION", "VM", "PROFILE",
          "FB USED", "GPU", "STUN p50/p95", "FORECAST BASIS", "DURATION", "WHY");
      for (JsonNode vm : plan.path("vms")) {
        JsonNode f = vm.path("forecast");
        out.printf("%3d  %-10s  %-18s  %-9s  %9s  %5s  %15s  %-17s  %9s  %s%n", vm.path("order").asInt(),
            vm.path("action").asText(), text(vm.path("vmName")), text(vm.path("vgpuProfile")),
            vm.path("fbUsedMiB").isNumber() ? String.format(Locale.ROOT, "%.1f GiB",
                vm.path("fbUsedMiB").asDouble() / 1024) : "unknown",
            vm.path("gpuUtilizationPct").isNumber() ? String.format(Locale.ROOT, "%.0f %%",
                vm.path("gpuUtilizationPct").asDouble()) : "?",
            f.isObject() ? String.format(Locale.ROOT, "%.1f/%.1f s", f.path("p50Seconds").asDouble(),
                f.path("p95Seconds").asDouble()) : "unknown",
            f.isObject() ? f.path("basis").asText() : "", seconds(vm.path("duration").path("p50Seconds")),
            vm.path("reason").asText());
      }
      JsonNode t = plan.path("totals");
      out.printf(Locale.ROOT, "Total: %d VMs, %d deferred, %d would fail; stun %s%s; migration time %s%s%n",
          t.path("vms").asInt(), t.path("deferred").asInt(), t.path("wouldFail").asInt(),
          t.path("stunP50Seconds").isNumber()
              ? String.format(Locale.ROOT, "%.1f s (p50), %.1f s (p95)", t.path("stunP50Seconds").asDouble(),
              t.path("stunP95Seconds").asDouble()) : "unknown",
          t.path("unknownStun").asInt() > 0 ? ", " + t.path("unknownStun").asInt() + " unknown" : "",
          seconds(t.path("durationSeconds")), t.path("unknownDuration").asInt() > 0
              ? ", " + t.path("unknownDuration").asInt() + " unknown" : "");
      out.flush();
      return ExitCodes.OK;
    }
  }

  /** {@code stunwatch plan check VM}. */
  @Command(name = "check", mixinStandardHelpOptions = true,
      description = {"Is it safe to migrate VM now? Prints yes or no with the reasons (under load now, forecast stun "
          + "over api.plan.max-stun, load unknown) and the next quieter hour from the VM's last 7 days.",
          "Exit status 0 when safe, " + NOT_SAFE + " when not: a DRS script can call it. Reads GET "
              + "/api/vms/{vm}/migrate-check."})
  static final class Check implements Callable<Integer> {
    private final LaunchContext ctx;

    @Parameters(index = "0", paramLabel = "VM", description = "VM id (SMBIOS UUID).")
    String vm;

    @Option(names = "--to", paramLabel = "HOST", description = "The destination host, when known.")
    String to;

    @Mixin
    ApiOptions options;

    Check(LaunchContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() throws Exception {
      JsonNode c;
      try {
        c = options.get(ctx, "/api/vms/" + enc(vm) + "/migrate-check" + (to == null ? "" : "?to=" + enc(to)));
      } catch (IOException | IllegalArgumentException e) {
        ctx.err().println("stunwatch plan check: " + e.getMessage());
        return ExitCodes.FAILED;
      }
      PrintWriter out = ctx.out();
      boolean safe = c.path("safe").asBoolean();
      if (options.json) {
        out.println(Json.mapper().writeValueAsString(c));
      } else {
        out.printf("%s (%s) on %s: %s%n", text(c.path("vmName")), c.path("vmId").asText(), text(c.path("host")),
            safe ? "safe to migrate now" : "not safe to migrate now");
        for (JsonNode why : c.path("reasons")) {
          out.printf("  %s: %s%n", why.path("code").asText(), why.path("detail").asText());
        }
        JsonNode f = c.path("forecast");
        if (f.isObject()) {
          out.printf(Locale.ROOT, "  forecast stun %.1f s (p50), %.1f s (p95), %s; VMware's figure %.1f s%n",
              f.path("p50Seconds").asDouble(), f.path("p95Seconds").asDouble(), f.path("basis").asText(),
              f.path("reference").path("p50Seconds").asDouble());
        }
        JsonNode w = c.path("nextQuieterWindow");
        if (!safe) {
          out.println(w.isObject() ? String.format(Locale.ROOT, "  next quieter hour: %s to %s (%.0f %% GPU on %d "
                  + "of the last 7 days)", w.path("start").asText(), w.path("end").asText(),
              w.path("expectedGpuUtilizationPct").asDouble(), w.path("days").asInt())
              : "  no quieter hour in the last 7 days");
        }
      }
      out.flush();
      return safe ? ExitCodes.OK : NOT_SAFE;
    }
  }

  private static String text(JsonNode n) {
    return n.isTextual() ? n.asText() : "-";
  }

  private static String seconds(JsonNode n) {
    if (!n.isNumber()) {
      return "unknown";
    }
    double s = n.asDouble();
    return s < 120 ? String.format(Locale.ROOT, "%.0f s", s) : String.format(Locale.ROOT, "%.1f min", s / 60);
  }
}
