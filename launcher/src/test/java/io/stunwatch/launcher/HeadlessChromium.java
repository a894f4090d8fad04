package io.stunwatch.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.stunwatch.model.json.Json;
import io.stunwatch.testsupport.Await;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real Chromium, headless, driven over its DevTools protocol through the JDK's WebSocket: navigate, evaluate, wait
 * for a condition in the page, take screenshots. Every JavaScript exception, console error (a Content-Security-Policy
 * violation among them), failed request and HTTP error answer of the page is kept in {@link #problems()}.
 */
final class HeadlessChromium implements AutoCloseable {

  private static final Pattern LISTENING = Pattern.compile("DevTools listening on (ws://\\S+)");

  private final Process process;
  private final WebSocket socket;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
  private final List<String> problems = new CopyOnWriteArrayList<>();

  private HeadlessChromium(Process process, WebSocket socket) {
    this.process = process;
    this.socket = socket;
  }

  /** Starts {@code binary} with a fresh profile under {@code dir}, and attaches to its first page. */
  static HeadlessChromium start(Path binary, Path dir) throws Exception {
    Path profile = Files.createDirectories(dir.resolve("chromium-profile"));
    // The flags keep a closed machine quiet: no background connections, updates or sync to be refused.
    Process p = new ProcessBuilder(binary.toString(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-extensions", "--remote-debugging-port=0", "--remote-allow-origins=*",
        "--user-data-dir=" + profile, "--window-size=1400,1000", "about:blank").redirectErrorStream(true).start();
    BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String browser = null;
    List<String> seen = new ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    for (String line; browser == null && System.nanoTime() < deadline && (line = out.readLine()) != null; ) {
      seen.add(line);
      Matcher m = LISTENING.matcher(line);
      if (m.find()) {
        browser = m.group(1);
      }
    }
    if (browser == null) {
      p.destroyForcibly();
      throw new IllegalStateException("Chromium did not say where DevTools listen:\n" + String.join("\n", seen));
    }
    Thread drain = new Thread(() -> {
      try {
        while (out.readLine() != null) {
          // Chromium's own log: read so that it never blocks on a full pipe
        }
      } catch (IOException e) {
        // the process ended
      }
    }, "chromium-output");
    drain.setDaemon(true);
    drain.start();
    URI devtools = URI.create(browser);
    HttpClient http = HttpClient.newHttpClient();
    JsonNode targets = Json.mapper().readTree(http.send(HttpRequest.newBuilder(URI.create("http://"
        + devtools.getAuthority() + "/json/list")).build(), HttpResponse.BodyHandlers.ofString()).body());
    String page = null;
    for (JsonNode t : targets) {
      if ("page".equals(t.path("type").asText())) {
        page = t.path("webSocketDebuggerUrl").asText();
        break;
      }
    }
    if (page == null) {
      p.destroyForcibly();
      throw new IllegalStateException("Chromium has no page target: " + targets);
    }
    Listener listener = new Listener();
    WebSocket ws = http.newWebSocketBuilder().buildAsync(URI.create(page), listener).get(30, TimeUnit.SECONDS);
    HeadlessChromium c = new HeadlessChromium(p, ws);
    listener.owner = c;
    for (String domain : List.of("Runtime", "Page", "Network", "Log")) {
      c.send(domain + ".enable", Json.mapper().createObjectNode());
    }
    return c;
  }

  /** Receives the protocol's messages, whole. */
  private static final class Listener implements WebSocket.Listener {
    private final StringBuilder text = new StringBuilder();
    volatile HeadlessChromium owner;

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
      text.append(data);
      if (last) {
        String message = text.toString();
        text.setLength(0);
        if (owner != null) {
          owner.receive(message);
        }
      }
      ws.request(1);
      return null;
    }
  }

  private void receive(String message) {
    JsonNode m;
    try {
      m = Json.mapper().readTree(message);
    } catch (IOException e) {
      problems.add("unreadable DevTools message: " + message);
      return;
    }
    if (m.has("id")) {
      CompletableFuture<JsonNode> f = pending.remove(m.get("id").asInt());
      if (f != null) {
        f.complete(m);
      }
      return;
    }
    JsonNode p = m.path("params");
    switch (m.path("method").asText()) {
      case "Runtime.exceptionThrown" -> problems.add("JavaScript exception: " + p.path("exceptionDetails")
          .path("exception").path("description").asText(p.path("exceptionDetails").path("text").asText()));
      case "Runtime.consoleAPICalled" -> {
        if ("error".equals(p.path("type").asText())) {
          problems.add("console.error: " + p.path("args"));
        }
      }
      case "Log.entryAdded" -> {
        if ("error".equals(p.path("entry").path("level").asText())) {
          problems.add("browser log: " + p.path("entry").path("text").asText() + " "
              + p.path("entry").path("url").asText());
        }
      }
      case "Network.responseReceived" -> {
        int status = p.path("response").path("status").asInt();
        if (status >= 400) {
          problems.add("HTTP " + status + " for " + p.path("response").path("url").asText());
        }
      }
      case "Network.loadingFailed" -> {
        if (!p.path("canceled").asBoolean()) {
          problems.add("request failed: " + p.path("errorText").asText() + " (" + p.path("type").asText() + ")");
        }
      }
      default -> {
      }
    }
  }

  /** Sends one command and waits for its answer; a protocol error fails. */
  JsonNode send(String method, ObjectNode params) throws Exception {
    int id = ids.incrementAndGet();
    CompletableFuture<JsonNode> answer = new CompletableFuture<>();
    pending.put(id, answer);
    ObjectNode m = Json.mapper().createObjectNode().put("id", id).put("method", method);
    m.set("params", params);
    socket.sendText(m.toString(), true).get(30, TimeUnit.SECONDS);
    JsonNode a = answer.get(60, TimeUnit.SECONDS);
    if (a.has("error")) {
      throw new IllegalStateException(method + ": " + a.get("error"));
    }
    return a.path("result");
  }

  void navigate(String url) throws Exception {
    send("Page.navigate", Json.mapper().createObjectNode().put("url", url));
  }

  /** The value of {@code expression} in the page (a promise awaited); an exception in it fails. */
  JsonNode eval(String expression) throws Exception {
    JsonNode r = send("Runtime.evaluate", Json.mapper().createObjectNode().put("expression", expression)
        .put("awaitPromise", true).put("returnByValue", true));
    if (r.has("exceptionDetails")) {
      throw new IllegalStateException(expression + ": " + r.get("exceptionDetails"));
    }
    return r.path("result").path("value");
  }

  /** Waits until {@code condition} is true in the page. */
  void await(String condition, Duration timeout, String what) {
    Await.until(timeout, Duration.ofMillis(100), () -> {
      try {
        return eval("!!(" + condition + ")").asBoolean();
      } catch (Exception e) {
        return false;
      }
    }, what, () -> {
      try {
        return "page: " + eval("location.href + '\\n' + document.body.innerText.slice(0, 2000)").asText()
            + "\nproblems: " + problems;
      } catch (Exception e) {
        return e.toString();
      }
    });
  }

  /** A PNG of the page as it is. */
  void screenshot(Path file) throws Exception {
    JsonNode r = send("Page.captureScreenshot", Json.mapper().createObjectNode().put("format", "png"));
    Files.createDirectories(file.getParent());
    Files.write(file, Base64.getDecoder().decode(r.path("data").asText()));
  }

  /** JavaScript errors, console errors and failed or refused requests, in order. */
  List<String> problems() {
    return List.copyOf(problems);
  }

  @Override
  public void close() {
    try {
      socket.abort();
    } finally {
      process.destroy();
      try {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
