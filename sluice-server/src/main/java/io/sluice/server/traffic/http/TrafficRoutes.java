package io.sluice.server.traffic.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.protocol.http.ApiStyle;
import io.sluice.server.protocol.http.AsyncReply;
import io.sluice.server.protocol.http.HttpParams;
import io.sluice.server.protocol.http.HttpResponses;
import io.sluice.server.protocol.http.HttpRoutes;
import io.sluice.server.protocol.http.RequestParams;
import io.sluice.server.traffic.TrafficStore;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import java.util.Map;

/**
 * The agents' traffic over HTTP: {@code POST /nacos/v1/sluice/traffic} takes an agent's report (a
 * form field {@code report} holding the JSON {@link TrafficReportCodec} reads); the console reads
 * {@code GET .../traffic/apps}, {@code .../traffic/resources?app=} and {@code
 * .../traffic/series?app=&resource=[&instance=]} as JSON. With auth on these are the admin's, as
 * every path no access rule names.
 */
public final class TrafficRoutes implements HttpRoutes {
  public static final String PATH = "/nacos/v1/sluice/traffic";

  /** Thirty seconds of 2,000 resources fit; a report beyond it is refused 413. */
  static final long MAX_BODY_BYTES = 4L * 1024 * 1024;

  private final TrafficStore store;
  private final TrafficReportCodec codec;

  public TrafficRoutes(TrafficStore store) {
    this.store = store;
    this.codec = new TrafficReportCodec(new ObjectMapper());
  }

  @Override
  public void mount(Router router) {
    router
        .route(HttpMethod.POST, PATH)
        .handler(RequestParams.handler(MAX_BODY_BYTES, ApiStyle.V1, this::report));
    router
        .route(HttpMethod.GET, PATH + "/apps")
        .handler(
            RequestParams.handler(
                0,
                ApiStyle.V1,
                (request, params) -> answer(request, () -> Map.of("apps", store.apps()))));
    router
        .route(HttpMethod.GET, PATH + "/resources")
        .handler(
            RequestParams.handler(
                0,
                ApiStyle.V1,
                (request, params) -> {
                  String app = params.required("app");
                  answer(request, () -> Map.of("app", app, "resources", store.resources(app)));
                }));
    router
        .route(HttpMethod.GET, PATH + "/series")
        .handler(
            RequestParams.handler(
                0,
                ApiStyle.V1,
                (request, params) -> {
                  String app = params.required("app");
                  String resource = params.required("resource");
                  String instance = params.get("instance");
                  answer(
                      request,
                      () ->
                          Map.of(
                              "app",
                              app,
                              "resource",
                              resource,
                              "seconds",
                              store.series(app, resource, blankToNull(instance))));
                }));
  }

  /** Parsing a report takes up to a few ms for the largest, so it runs on a worker. */
  private void report(HttpServerRequest request, HttpParams params) {
    String report = params.required("report");
    AsyncReply.offEventLoop(
        request,
        ApiStyle.V1,
        () -> {
          store.accept(codec.read(report));
          return "ok";
        },
        ok -> HttpResponses.text(request.response(), 200, ok));
  }

  /** Reads the store off the event loop (it walks every instance of an application). */
  private static void answer(HttpServerRequest request, java.util.concurrent.Callable<?> read) {
    AsyncReply.offEventLoop(
        request, ApiStyle.V1, read, body -> HttpResponses.ok(request.response(), body));
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
