package io.stunwatch.collectors.worker;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/** Serves a Prometheus registry at {@code /metrics}, for the collectors (the API serves its own through Vert.x). */
public final class MetricsServer implements AutoCloseable {

  private final HttpServer server;

  private MetricsServer(HttpServer server) {
    this.server = server;
  }

  /** Starts serving on {@code host:port} (port 0: any free port). */
  public static MetricsServer start(PrometheusMeterRegistry registry, String host, int port) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 16);
    server.createContext("/metrics", exchange -> {
      try (exchange) {
        if (!"GET".equals(exchange.getRequestMethod())) {
          exchange.sendResponseHeaders(405, -1);
          return;
        }
        byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      }
    });
    server.start();
    return new MetricsServer(server);
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
