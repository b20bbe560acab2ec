package io.sluice.server.naming.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.server.naming.BeatMonitor;
import io.sluice.server.naming.NamingService;
import io.sluice.server.naming.ServiceRegistry;
import io.sluice.server.protocol.http.HttpApiException;
import io.sluice.server.protocol.http.HttpFailures;
import io.vertx.core.Future;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Nacos's naming HTTP API on the HTTP port: {@code /nacos/v1/ns/...} (plain-text {@code ok} or
 * JSON; errors as a status with a plain-text message) and {@code /nacos/v2/ns/...} (the envelope
 * {@code {"code":0,"message":"success","data":...}}; errors as a status with {@code {"code":<Nacos
 * error code>,"message":<its abstract>,"data":<detail>}}).
 *
 * <p>Handlers run on the event loop and only do CPU work there: registry reads and ephemeral writes
 * are in-memory; replicated writes (persistent instances, services) are answered when their future
 * completes, back on the request's context. Bodies are limited to {@value #MAX_BODY_BYTES} bytes.
 */
public final class NamingHttpRoutes {
  private static final Logger log = LoggerFactory.getLogger(NamingHttpRoutes.class);

  static final long MAX_BODY_BYTES = 256 * 1024;
  private static final String V1 = "/nacos/v1/ns";
  private static final String V2 = "/nacos/v2/ns";

  private final ObjectMapper json =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
  private final ServiceRegistry registry;
  private final BeatMonitor beats;
  private final BooleanSupplier ready;
  private final IntSupplier connectionCount;
  private final InstanceEndpoints instances;
  private final ServiceEndpoints services;

  private NamingHttpRoutes(
      NamingService naming, BeatMonitor beats, BooleanSupplier ready, IntSupplier connectionCount) {
    this.registry = naming.registry();
    this.beats = beats;
    this.ready = ready;
    this.connectionCount = connectionCount;
    this.instances = new InstanceEndpoints(naming, beats, json);
    this.services = new ServiceEndpoints(naming, json);
  }

  /**
   * Adds the naming routes to the HTTP port's router.
   *
   * @param ready whether the store serves (the metrics' {@code status} is {@code UP} then)
   * @param connectionCount gRPC connections, reported as clients with the HTTP ones
   */
  public static void mount(
      Router router,
      NamingService naming,
      BeatMonitor beats,
      BooleanSupplier ready,
      IntSupplier connectionCount) {
    NamingHttpRoutes routes = new NamingHttpRoutes(naming, beats, ready, connectionCount);
    BodyHandler body = BodyHandler.create(false).setBodyLimit(MAX_BODY_BYTES);
    router.route(V1 + "/*").handler(body);
    router.route(V2 + "/*").handler(body);
    InstanceEndpoints i = routes.instances;
    ServiceEndpoints s = routes.services;
    for (boolean v2 : new boolean[] {false, true}) {
      String base = v2 ? V2 : V1;
      routes.on(router, HttpMethod.POST, base + "/instance", v2, i::register);
      routes.on(router, HttpMethod.DELETE, base + "/instance", v2, i::deregister);
      routes.on(router, HttpMethod.PUT, base + "/instance", v2, i::update);
      routes.on(router, HttpMethod.PATCH, base + "/instance", v2, p -> bare(i.patch(p)));
      routes.on(router, HttpMethod.GET, base + "/instance", v2, p -> i.detail(p, v2));
      routes.on(router, HttpMethod.GET, base + "/instance/list", v2, i::list);
      routes.on(router, HttpMethod.PUT, base + "/instance/beat", v2, i::beat);
      routes.on(router, HttpMethod.POST, base + "/service", v2, s::create);
      routes.on(router, HttpMethod.PUT, base + "/service", v2, p -> s.update(p, v2));
      routes.on(router, HttpMethod.DELETE, base + "/service", v2, s::delete);
      routes.on(router, HttpMethod.GET, base + "/service", v2, p -> s.detail(p, v2));
      routes.on(router, HttpMethod.GET, base + "/service/list", v2, p -> s.list(p, v2));
    }
    routes.on(router, HttpMethod.PUT, V1 + "/cluster", false, s::updateCluster);
    router.route(HttpMethod.GET, V1 + "/operator/metrics").handler(routes::metrics);
  }

  /** Nacos answers v2 PATCH with a bare {@code ok}. */
  private static CompletionStage<Answer> bare(CompletionStage<Answer> answer) {
    return answer.thenApply(a -> new Answer(a.body(), a.json(), true));
  }

  private interface Endpoint {
    CompletionStage<Answer> handle(NamingParams params);
  }

  private void on(Router router, HttpMethod method, String path, boolean v2, Endpoint endpoint) {
    router
        .route(method, path)
        .handler(
            ctx -> {
              CompletionStage<Answer> answer;
              try {
                answer = endpoint.handle(new NamingParams(ctx.request().params(), json));
              } catch (RuntimeException e) {
                fail(ctx, v2, e);
                return;
              }
              Future.fromCompletionStage(answer, ctx.vertx().getOrCreateContext())
                  .onComplete(
                      done -> {
                        if (done.succeeded()) {
                          succeed(ctx, v2, done.result());
                        } else {
                          fail(ctx, v2, done.cause());
                        }
                      });
            });
  }

  private void succeed(RoutingContext ctx, boolean v2, Answer answer) {
    HttpServerResponse response = ctx.response();
    if (!v2 || answer.bare()) {
      response
          .putHeader(
              "Content-Type",
              answer.json() ? "application/json;charset=UTF-8" : "text/plain;charset=UTF-8")
          .end(answer.body());
      return;
    }
    String data = answer.json() ? answer.body() : quoted(answer.body());
    response
        .putHeader("Content-Type", "application/json;charset=UTF-8")
        .end("{\"code\":0,\"message\":\"success\",\"data\":" + data + "}");
  }

  private void fail(RoutingContext ctx, boolean v2, Throwable failure) {
    NamingHttpException error = toHttpError(failure);
    if (error.status >= 500) {
      log.warn(
          "{} {} failed: {}",
          ctx.request().method(),
          ctx.request().path(),
          error.getMessage(),
          failure);
    }
    HttpServerResponse response = ctx.response().setStatusCode(error.status);
    if (!v2) {
      response
          .putHeader("Content-Type", "text/plain;charset=UTF-8")
          .end(String.valueOf(error.getMessage()));
      return;
    }
    ObjectNode body = json.createObjectNode();
    body.put("code", error.code);
    body.put("message", error.abstractMessage);
    body.put("data", error.getMessage());
    response.putHeader("Content-Type", "application/json;charset=UTF-8").end(body.toString());
  }

  static NamingHttpException toHttpError(Throwable failure) {
    Throwable cause = HttpFailures.unwrap(failure);
    if (cause instanceof NamingHttpException e) {
      return e;
    }
    HttpApiException answer = HttpFailures.of(cause);
    return new NamingHttpException(
        answer.status(), answer.code().code(), answer.code().message(), answer.getMessage());
  }

  private String quoted(String text) {
    try {
      return json.writeValueAsString(text);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * GET /nacos/v1/ns/operator/metrics: {@code status} ({@code UP} once the store serves, which the
   * official client's {@code serverHealthy()} checks), counts of services, instances, subscribers
   * and clients, and the machine's cpu, load and memory use.
   */
  private void metrics(RoutingContext ctx) {
    ObjectNode metrics = json.createObjectNode();
    metrics.put("status", ready.getAsBoolean() ? "UP" : "STARTING");
    int serviceCount = registry.serviceCount();
    int instanceCount = registry.instanceCount();
    int connections = connectionCount.getAsInt();
    int httpClients = beats.clientCount();
    metrics.put("serviceCount", serviceCount);
    metrics.put("instanceCount", instanceCount);
    metrics.put("subscribeCount", registry.subscriberCount());
    metrics.put("responsibleServiceCount", serviceCount);
    metrics.put("responsibleInstanceCount", instanceCount);
    metrics.put("clientCount", connections + httpClients);
    metrics.put("connectionBasedClientCount", connections);
    metrics.put("ephemeralIpPortClientCount", httpClients);
    metrics.put("persistentIpPortClientCount", registry.persistentInstances().size());
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
    ctx.response()
        .putHeader("Content-Type", "application/json;charset=UTF-8")
        .end(metrics.toString());
  }
}
