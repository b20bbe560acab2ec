package io.sluice.server.naming.http;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import io.sluice.server.cluster.http.MemberCalls;
import io.sluice.server.naming.NamingService;
import io.sluice.server.naming.NamingStats;
import io.sluice.server.protocol.http.ApiStyle;
import io.sluice.server.protocol.http.AsyncReply;
import io.sluice.server.protocol.http.HttpParams;
import io.sluice.server.protocol.http.HttpResponses;
import io.sluice.server.protocol.http.HttpRoutes;
import io.sluice.server.protocol.http.RequestParams;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * Nacos's naming HTTP API on the HTTP port: {@code /nacos/v1/ns/...} (plain-text {@code ok} or
 * JSON; errors as a status with a plain-text message) and {@code /nacos/v2/ns/...} (the envelope
 * {@code {"code":0,"message":"success","data":...}}; errors as a status with {@code {"code":<Nacos
 * error code>,"message":<its abstract>,"data":<detail>}}).
 *
 * <p>Like every HTTP endpoint, it reads parameters with {@link RequestParams} (bodies limited to
 * {@value #MAX_BODY_BYTES} bytes), answers failures through the one translation of {@link
 * io.sluice.server.protocol.http.HttpFailures} and writes replies with {@link HttpResponses}.
 * Handlers run on the event loop and only do CPU work there: registry reads and ephemeral writes
 * are in-memory; replicated writes (persistent instances, services) are answered when their future
 * completes, back on the request's event loop; the metrics scan runs on a worker.
 */
public final class NamingHttpApi implements HttpRoutes {
  static final long MAX_BODY_BYTES = 256 * 1024;
  private static final String V1 = "/nacos/v1/ns";
  private static final String V2 = "/nacos/v2/ns";

  private final ObjectMapper json =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
  private final NamingService naming;
  private final BooleanSupplier ready;
  private final IntSupplier connectionCount;
  private final InstanceEndpoints instances;
  private final ServiceEndpoints services;
  private final ClusterSubscribers clusterSubscribers;

  /**
   * @param ready whether the store serves (the metrics' {@code status} is {@code UP} then)
   * @param connectionCount gRPC connections, reported as clients with the HTTP ones
   * @param members the cluster's other members, asked for their subscribers
   */
  public NamingHttpApi(
      NamingService naming,
      BooleanSupplier ready,
      IntSupplier connectionCount,
      MemberCalls members) {
    this.naming = naming;
    this.ready = ready;
    this.connectionCount = connectionCount;
    this.instances = new InstanceEndpoints(naming, json);
    this.services = new ServiceEndpoints(naming, json);
    this.clusterSubscribers = new ClusterSubscribers(naming, members, json);
  }

  @Override
  public void mount(Router router) {
    InstanceEndpoints i = instances;
    ServiceEndpoints s = services;
    for (ApiStyle style : ApiStyle.values()) {
      boolean v2 = style == ApiStyle.V2;
      String base = v2 ? V2 : V1;
      on(router, HttpMethod.POST, base + "/instance", style, i::register);
      on(router, HttpMethod.DELETE, base + "/instance", style, i::deregister);
      on(router, HttpMethod.PUT, base + "/instance", style, i::update);
      // Nacos answers v2 PATCH with a bare "ok".
      on(
          router,
          HttpMethod.PATCH,
          base + "/instance",
          style,
          p -> i.patch(p).thenApply(Answer::withoutEnvelope));
      on(router, HttpMethod.GET, base + "/instance", style, p -> i.detail(p, v2));
      on(router, HttpMethod.GET, base + "/instance/list", style, i::list);
      on(router, HttpMethod.PUT, base + "/instance/beat", style, i::beat);
      on(router, HttpMethod.POST, base + "/service", style, s::create);
      on(router, HttpMethod.PUT, base + "/service", style, p -> s.update(p, v2));
      on(router, HttpMethod.DELETE, base + "/service", style, s::delete);
      on(router, HttpMethod.GET, base + "/service", style, p -> s.detail(p, v2));
      on(router, HttpMethod.GET, base + "/service/list", style, p -> s.list(p, v2));
      onWithToken(
          router,
          HttpMethod.GET,
          base + "/service/subscribers",
          style,
          (p, token) ->
              "false".equalsIgnoreCase(p.optional("aggregation")) || !clusterSubscribers.clustered()
                  ? s.subscribers(p)
                  : clusterSubscribers.subscribers(p, token));
    }
    on(router, HttpMethod.PUT, V1 + "/cluster", ApiStyle.V1, s::updateCluster);
    on(router, HttpMethod.GET, V1 + "/catalog/services", ApiStyle.V1, s::catalogServices);
    on(router, HttpMethod.GET, V1 + "/catalog/instances", ApiStyle.V1, s::catalogInstances);
    router
        .route(HttpMethod.GET, V1 + "/operator/metrics")
        .handler(RequestParams.handler(0, ApiStyle.V1, this::metrics));
  }

  private interface Endpoint {
    CompletionStage<Answer> handle(NamingParams params);
  }

  /** An endpoint that asks the other members on the caller's behalf, with its token. */
  private interface MemberEndpoint {
    CompletionStage<Answer> handle(NamingParams params, String token);
  }

  private void onWithToken(
      Router router, HttpMethod method, String path, ApiStyle style, MemberEndpoint endpoint) {
    router
        .route(method, path)
        .handler(
            RequestParams.handler(
                MAX_BODY_BYTES,
                style,
                (request, params) ->
                    AsyncReply.when(
                        endpoint.handle(
                            new NamingParams(params, json),
                            MemberCalls.callerToken(request, params)),
                        request,
                        style,
                        answer -> reply(request.response(), style, answer))));
  }

  private void on(
      Router router, HttpMethod method, String path, ApiStyle style, Endpoint endpoint) {
    router
        .route(method, path)
        .handler(
            RequestParams.handler(
                MAX_BODY_BYTES,
                style,
                (request, params) ->
                    AsyncReply.when(
                        endpoint.handle(new NamingParams(params, json)),
                        request,
                        style,
                        answer -> reply(request.response(), style, answer))));
  }

  /** v1 (and a bare v2 answer): the body as it is; v2: the body as the envelope's data. */
  private static void reply(HttpServerResponse response, ApiStyle style, Answer answer) {
    if (style == ApiStyle.V1 || answer.bare()) {
      if (answer.json()) {
        HttpResponses.rawJson(response, 200, answer.body());
      } else {
        HttpResponses.text(response, 200, answer.body());
      }
      return;
    }
    HttpResponses.success(response, answer.json() ? new RawValue(answer.body()) : answer.body());
  }

  /**
   * GET /nacos/v1/ns/operator/metrics: {@code status} ({@code UP} once the store serves, which the
   * official client's {@code serverHealthy()} checks), counts of services, instances, subscribers
   * and clients, and the machine's cpu, load and memory use. Counting scans the registry, so it
   * runs on a worker.
   */
  private void metrics(HttpServerRequest request, HttpParams params) {
    boolean up = ready.getAsBoolean();
    int connections = connectionCount.getAsInt();
    AsyncReply.offEventLoop(
        request,
        ApiStyle.V1,
        naming::stats,
        stats ->
            HttpResponses.rawJson(request.response(), 200, metricsJson(stats, up, connections)));
  }

  private String metricsJson(NamingStats stats, boolean up, int connections) {
    ObjectNode metrics = json.createObjectNode();
    metrics.put("status", up ? "UP" : "STARTING");
    int httpClients = stats.heartbeatingClients();
    metrics.put("serviceCount", stats.services());
    metrics.put("instanceCount", stats.instances());
    metrics.put("subscribeCount", stats.subscribers());
    metrics.put("responsibleServiceCount", stats.services());
    metrics.put("responsibleInstanceCount", stats.instances());
    metrics.put("clientCount", connections + httpClients);
    metrics.put("connectionBasedClientCount", connections);
    metrics.put("ephemeralIpPortClientCount", httpClients);
    metrics.put("persistentIpPortClientCount", stats.persistentInstances());
    metrics.put("responsibleClientCount", connections + httpClients);
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    double cpu = 0;
    double mem = 0;
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      cpu = Math.max(0, sun.getCpuLoad());
      long total = sun.getTotalMemorySize();
      mem = total > 0 ? 1 - (double) sun.getFreeMemorySize() / total : 0;
    }
    metrics.put("cpu", cpu);
    metrics.put("load", Math.max(0, os.getSystemLoadAverage()));
    metrics.put("mem", mem);
    return metrics.toString();
  }
}
