package io.stunwatch.api;

import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Router;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** {@code /openapi.json}: the API's OpenAPI 3 description, a resource of this module. */
final class OpenApiEndpoint {

  static final String RESOURCE = "/io/stunwatch/api/openapi.json";

  private final Buffer document;

  OpenApiEndpoint() {
    try (InputStream in = OpenApiEndpoint.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the jar");
      }
      document = Buffer.buffer(in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void addRoutes(Router router) {
    router.get("/openapi.json").handler(rc -> rc.response().putHeader("Content-Type", "application/json")
        .end(document));
  }
}
