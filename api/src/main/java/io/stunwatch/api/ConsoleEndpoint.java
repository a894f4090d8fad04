package io.stunwatch.api;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.StaticHandler;

/**
 * The built-in web console: {@code /} redirects to {@code /console/}, where plain HTML, CSS and ES modules (and the
 * vendored uPlot) are served from the jar. The pages hold nothing secret, so they are served without the token; they
 * ask for it once, keep it in the tab's {@code sessionStorage}, and read only the public {@code /api}. A strict
 * Content-Security-Policy allows scripts, styles and requests from this origin alone, and no inline script.
 */
final class ConsoleEndpoint {

  /** Where the console's files are, on the class path. */
  static final String ROOT = "io/stunwatch/api/console";

  /** Everything from this origin, nothing inline, no frames. */
  static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
      + "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

  void addRoutes(Router router) {
    router.get("/").handler(rc -> rc.redirect("/console/"));
    router.route("/console/*").handler(rc -> {
      rc.response().putHeader("Content-Security-Policy", CSP).putHeader("Referrer-Policy", "no-referrer")
          .putHeader("X-Frame-Options", "DENY");
      rc.next();
    }).handler(StaticHandler.create(ROOT).setIndexPage("index.html").setDirectoryListing(false)
        .setIncludeHidden(false).setDefaultContentEncoding("UTF-8"));
  }
}
