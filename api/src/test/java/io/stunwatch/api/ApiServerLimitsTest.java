package io.stunwatch.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stunwatch.metrics.Meters;
import io.vertx.core.Vertx;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The connection limit and the idle timeout, over raw loopback sockets. */
class ApiServerLimitsTest {

  Vertx vertx;
  int port;
  PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    ApiConfig config = new ApiConfig("127.0.0.1", 0, "127.0.0.1", ApiServerTest.TOKEN, true, 50, Duration.ofDays(92),
        null, null, Duration.ofSeconds(1), 2, "internal-token-0123456789", null, 2000);
    ApiServerTest.FakeStores stores = new ApiServerTest.FakeStores();
    port = new ApiServer(vertx, config, stores, () -> true, registry, null, Duration.ofMinutes(30),
        ApiServerTest.CLOCK).start().await(10, TimeUnit.SECONDS).actualPort();
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  /** Sends a request on the socket and reads the status line; null when the server closed the connection. */
  static String statusLine(Socket s) throws Exception {
    OutputStream out = s.getOutputStream();
    out.write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    out.flush();
    InputStream in = s.getInputStream();
    StringBuilder line = new StringBuilder();
    int c;
    while ((c = in.read()) != -1 && c != '\n') {
      line.append((char) c);
    }
    return c == -1 && line.isEmpty() ? null : line.toString().trim();
  }

  @Test
  void aConnectionBeyondTheLimitIsClosedAndCountedAndOneFreedIsServedAgain() throws Exception {
    try (Socket a = new Socket("127.0.0.1", port); Socket b = new Socket("127.0.0.1", port)) {
      a.setSoTimeout(5000);
      b.setSoTimeout(5000);
      assertThat(statusLine(a)).isEqualTo("HTTP/1.1 200 OK");
      assertThat(statusLine(b)).isEqualTo("HTTP/1.1 200 OK");
      try (Socket c = new Socket("127.0.0.1", port)) {
        c.setSoTimeout(5000);
        String answer;
        try {
          answer = statusLine(c);
        } catch (SocketException reset) {
          answer = null; // closed while the request was written
        }
        assertThat(answer).as("the third connection").isNull();
      }
      assertThat(registry.counter(Meters.API_CONNECTIONS_REFUSED).count()).isEqualTo(1.0);
    }
    // both closed: the count goes down as the server sees them close, so a new one is served within a moment
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    String served = null;
    while (served == null && System.nanoTime() < deadline) {
      try (Socket d = new Socket("127.0.0.1", port)) {
        d.setSoTimeout(5000);
        served = statusLine(d);
      } catch (SocketException reset) {
        served = null;
      }
    }
    assertThat(served).isEqualTo("HTTP/1.1 200 OK");
  }

  @Test
  void anIdleConnectionIsClosedByTheServer() throws Exception {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(10_000);
      assertThat(statusLine(s)).isEqualTo("HTTP/1.1 200 OK");
      InputStream in = s.getInputStream();
      long started = System.nanoTime();
      int c;
      try {
        // the rest of the answer, then the end of the stream when the server closes the idle connection
        while ((c = in.read()) != -1) {
          // drain
        }
      } catch (SocketTimeoutException e) {
        throw new AssertionError("the idle connection was still open after 10 s", e);
      }
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
    }
  }
}
