package io.sluice.server.traffic.http;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.cluster.http.MemberCalls;
import io.sluice.server.protocol.ClientFaultLog;
import io.sluice.server.protocol.http.ApiStyle;
import io.sluice.server.protocol.http.AsyncReply;
import io.sluice.server.protocol.http.ClientIp;
import io.sluice.server.protocol.http.FormValue;
import io.sluice.server.protocol.http.HttpApiException;
import io.sluice.server.protocol.http.HttpParams;
import io.sluice.server.protocol.http.HttpResponses;
import io.sluice.server.protocol.http.HttpRoutes;
import io.sluice.server.protocol.http.RequestParams;
import io.sluice.server.traffic.TrafficStore;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
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

  /**
   * A report up to this size is read on the event loop it arrived on (a 200-resource report, about
   * 22 KB, takes tens of µs); a larger one, up to a few ms, on a worker.
   */
  static final int INLINE_REPORT_BYTES = 64 * 1024;

  /** The whole answer to a report taken: constant, so answering costs one small write. */
  private static final Buffer OK = Buffer.buffer("ok");

  private static final CharSequence CONTENT_TYPE = HttpHeaders.createOptimized("Content-Type");
  private static final CharSequence TEXT_PLAIN =
      HttpHeaders.createOptimized(HttpResponses.TEXT_PLAIN);

  private final TrafficStore store;
  private final TrafficIngest ingest;
  private final ClusterTraffic cluster;
  private final ClientFaultLog faults;

  /**
   * @param faults where a refused report is noted (one short line per cause at most every few
   *     seconds)
   */
  public TrafficRoutes(TrafficStore store, MemberCalls members, ClientFaultLog faults) {
    ObjectMapper json =
        new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    this.store = store;
    this.ingest = new TrafficIngest(store);
    this.cluster = new ClusterTraffic(store, members, json);
    this.faults = faults;
  }

  @Override
  public void mount(Router router) {
    router
        .route(HttpMethod.POST, PATH)
        .handler(RequestParams.handler(MAX_BODY_BYTES, ApiStyle.V1, "report", this::report));
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

  /**
   * Takes a report: read from the body's bytes ({@link TrafficIngest}), on the event loop when it
   * is small; answered with a constant "ok". A refused one is answered 400 with the reason and
   * noted once in the fault log.
   */
  private void report(HttpServerRequest request, HttpParams params) {
    FormValue report = params.bytes("report");
    if (report == null) {
      throw HttpApiException.missingParameter("report");
    }
    if (report.length() <= INLINE_REPORT_BYTES) {
      take(request, report);
      ok(request);
      return;
    }
    AsyncReply.offEventLoop(
        request,
        ApiStyle.V1,
        () -> {
          take(request, report);
          return OK;
        },
        ok -> ok(request));
  }

  private void take(HttpServerRequest request, FormValue report) {
    try {
      ingest.accept(report);
    } catch (HttpApiException e) {
      faults.note("traffic report refused", ClientIp.of(request) + ": " + e.getMessage());
      throw e;
    }
  }

  private static void ok(HttpServerRequest request) {
    HttpServerResponse response = request.response();
    if (!response.ended() && !response.closed()) {
      response.putHeader(CONTENT_TYPE, TEXT_PLAIN).end(OK);
    }
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
