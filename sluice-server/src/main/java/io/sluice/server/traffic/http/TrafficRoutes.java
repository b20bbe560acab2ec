package io.sluice.server.traffic.http;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.cluster.http.MemberCalls;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The agents' traffic over HTTP: {@code POST /nacos/v1/sluice/traffic} takes an agent's report (a
 * form field {@code report} holding the JSON {@link TrafficReportCodec} reads); the console reads
 * {@code GET .../traffic/apps}, {@code .../traffic/resources?app=} and {@code
 * .../traffic/series?app=&resource=[&instance=]} as JSON, merged over the cluster's members ({@link
 * ClusterTraffic}), or with {@code scope=local} only this node's share (the members' call; {@code
 * second=} and {@code last=} then choose the second to read up to). With auth on these are the
 * admin's, as every path no access rule names.
 */
public final class TrafficRoutes implements HttpRoutes {
  public static final String PATH = "/nacos/v1/sluice/traffic";

  /** Thirty seconds of 2,000 resources fit; a report beyond it is refused 413. */
  static final long MAX_BODY_BYTES = 4L * 1024 * 1024;

  private final TrafficStore store;
  private final TrafficReportCodec codec;
  private final ClusterTraffic cluster;

  public TrafficRoutes(TrafficStore store, MemberCalls members) {
    ObjectMapper json =
        new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    this.store = store;
    this.codec = new TrafficReportCodec(json);
    this.cluster = new ClusterTraffic(store, members, json);
  }

  @Override
  public void mount(Router router) {
    router
        .route(HttpMethod.POST, PATH)
        .handler(RequestParams.handler(MAX_BODY_BYTES, ApiStyle.V1, this::report));
    router
        .route(HttpMethod.GET, PATH + "/apps")
        .handler(RequestParams.handler(0, ApiStyle.V1, this::apps));
    router
        .route(HttpMethod.GET, PATH + "/resources")
        .handler(RequestParams.handler(0, ApiStyle.V1, this::resources));
    router
        .route(HttpMethod.GET, PATH + "/series")
        .handler(RequestParams.handler(0, ApiStyle.V1, this::series));
  }

  private void apps(HttpServerRequest request, HttpParams params) {
    if (!local(params)) {
      reply(request, cluster.apps(MemberCalls.callerToken(request, params)));
      return;
    }
    String app = blankToNull(params.get("app"));
    answer(
        request,
        () -> {
          if (app == null) {
            return Map.of("apps", store.apps());
          }
          TrafficStore.AppView one = store.app(app);
          return Map.of("apps", one == null ? List.of() : List.of(one));
        });
  }

  private void resources(HttpServerRequest request, HttpParams params) {
    String app = params.required("app");
    if (!local(params)) {
      reply(request, cluster.resources(app, MemberCalls.callerToken(request, params)));
      return;
    }
    String second = params.get("second");
    long at = second == null ? 0 : params.requiredLong("second");
    answer(
        request,
        () ->
            Map.of(
                "app",
                app,
                "resources",
                second == null ? store.resources(app) : store.resourcesAt(app, at)));
  }

  private void series(HttpServerRequest request, HttpParams params) {
    String app = params.required("app");
    String resource = params.required("resource");
    String instance = blankToNull(params.get("instance"));
    if (!local(params)) {
      reply(
          request,
          cluster.series(app, resource, instance, MemberCalls.callerToken(request, params)));
      return;
    }
    String last = params.get("last");
    long upTo = last == null ? 0 : params.requiredLong("last");
    answer(
        request,
        () ->
            Map.of(
                "app",
                app,
                "resource",
                resource,
                "seconds",
                last == null
                    ? store.series(app, resource, instance)
                    : store.seriesUpTo(app, resource, instance, upTo)));
  }

  /**
   * {@code scope=local}: what this node holds alone, as another member asks for it; otherwise the
   * whole cluster's, merged ({@link ClusterTraffic}).
   */
  private static boolean local(HttpParams params) {
    return "local".equals(params.get("scope"));
  }

  private static void reply(
      HttpServerRequest request, CompletableFuture<Map<String, Object>> merged) {
    AsyncReply.when(
        merged, request, ApiStyle.V1, body -> HttpResponses.ok(request.response(), body));
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
