package io.sluice.server.console;

import io.sluice.server.protocol.http.HttpResponses;
import io.sluice.server.protocol.http.HttpRoutes;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The web console: a page and its scripts at {@code /nacos/} (where Nacos users look for it), the
 * bare {@code /} and {@code /nacos} redirecting there. The files are read once from the server's
 * jar into memory at start (tens of KB), so serving one is a map lookup: no disk, no cache
 * directory. They are answered without a token, as a login page must be; every API call the page
 * makes is checked like any other.
 */
public final class ConsoleRoutes implements HttpRoutes {
  public static final String HOME = "/nacos/";
  static final String ASSETS = "/nacos/console/";
  private static final String RESOURCES = "/io/sluice/server/console/web/";

  /** Every file of the console, by name, with its content type. */
  private static final Map<String, String> FILES =
      Map.ofEntries(
          Map.entry("index.html", "text/html;charset=UTF-8"),
          Map.entry("dom.js", "text/javascript;charset=UTF-8"),
          Map.entry("app.js", "text/javascript;charset=UTF-8"),
          Map.entry("api.js", "text/javascript;charset=UTF-8"),
          Map.entry("configs.js", "text/javascript;charset=UTF-8"),
          Map.entry("services.js", "text/javascript;charset=UTF-8"),
          Map.entry("governance.js", "text/javascript;charset=UTF-8"),
          Map.entry("lanes.js", "text/javascript;charset=UTF-8"),
          Map.entry("cluster.js", "text/javascript;charset=UTF-8"),
          Map.entry("chart.js", "text/javascript;charset=UTF-8"),
          Map.entry("diff.js", "text/javascript;charset=UTF-8"),
          Map.entry("style.css", "text/css;charset=UTF-8"));

  private final Map<String, Asset> assets = new LinkedHashMap<>();

  public ConsoleRoutes() {
    FILES.forEach((name, type) -> assets.put(name, Asset.load(name, type)));
  }

  @Override
  public void mount(Router router) {
    router.route(HttpMethod.GET, "/").handler(ctx -> redirect(ctx.response()));
    // Vert.x's route "/nacos" takes "/nacos/" too: one handler sends the bare one to the other.
    Handler<RoutingContext> home =
        ctx -> {
          if (ctx.request().path().endsWith("/")) {
            serve(ctx, assets.get("index.html"));
          } else {
            redirect(ctx.response());
          }
        };
    router.route(HttpMethod.GET, "/nacos").handler(home);
    router.route(HttpMethod.GET, HOME).handler(home);
    router
        .route(HttpMethod.GET, ASSETS + ":file")
        .handler(ctx -> serve(ctx, assets.get(ctx.pathParam("file"))));
  }

  private static void redirect(HttpServerResponse response) {
    response.setStatusCode(302).putHeader(HttpHeaders.LOCATION, HOME).end();
  }

  private static void serve(RoutingContext ctx, Asset asset) {
    HttpServerResponse response = ctx.response();
    if (asset == null) {
      HttpResponses.text(response, 404, "no such console file: " + ctx.request().path());
      return;
    }
    // Revalidated on every load, so a new server's console is never served from an old cache.
    response
        .putHeader(HttpHeaders.CACHE_CONTROL, "no-cache")
        .putHeader(HttpHeaders.ETAG, asset.etag);
    if (asset.etag.equals(ctx.request().getHeader(HttpHeaders.IF_NONE_MATCH))) {
      response.setStatusCode(304).end();
      return;
    }
    response
        .setStatusCode(200)
        .putHeader(HttpHeaders.CONTENT_TYPE, asset.contentType)
        .putHeader("X-Content-Type-Options", "nosniff")
        .end(asset.bytes.copy()); // a buffer of its own: responses on other loops read theirs
  }

  /** One file of the console, held in memory. */
  private record Asset(String contentType, Buffer bytes, String etag) {
    static Asset load(String name, String contentType) {
      try (InputStream in = ConsoleRoutes.class.getResourceAsStream(RESOURCES + name)) {
        if (in == null) {
          throw new IllegalStateException("the console file " + name + " is missing from the jar");
        }
        byte[] bytes = in.readAllBytes();
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
        return new Asset(
            contentType, Buffer.buffer(bytes), '"' + HexFormat.of().formatHex(digest, 0, 12) + '"');
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the console file " + name, e);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA-256 is required of every Java platform", e);
      }
    }
  }
}
