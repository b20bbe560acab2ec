package io.sluice.server.namespace.http;

import io.sluice.server.feature.Fault;
import io.sluice.server.feature.FeatureException;
import io.sluice.server.namespace.Namespace;
import io.sluice.server.namespace.NamespaceException;
import io.sluice.server.namespace.NamespaceOutcome;
import io.sluice.server.namespace.NamespaceService;
import io.sluice.server.protocol.http.ApiStyle;
import io.sluice.server.protocol.http.AsyncReply;
import io.sluice.server.protocol.http.HttpApiException;
import io.sluice.server.protocol.http.HttpParams;
import io.sluice.server.protocol.http.HttpResponses;
import io.sluice.server.protocol.http.HttpRoutes;
import io.sluice.server.protocol.http.NacosErrorCode;
import io.sluice.server.protocol.http.ParamsHandler;
import io.sluice.server.protocol.http.RequestParams;
import io.sluice.server.protocol.http.RestResult;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Namespaces over HTTP, as Nacos 2.3's console serves them: v1 {@code /nacos/v1/console/namespaces}
 * (bare {@code true}/{@code false} answers, the list in a {@code RestResult}) and v2 {@code
 * /nacos/v2/console/namespace} (the {@code {code,message,data}} envelope, errors with codes). Every
 * list and detail carries the number of configs in the namespace.
 */
public final class NamespaceRoutes implements HttpRoutes {
  static final String V1_PATH = "/nacos/v1/console/namespaces";
  static final String V2_PATH = "/nacos/v2/console/namespace";

  /** Nacos reports a fixed quota of 200 configs per namespace and does not enforce it. */
  static final int QUOTA = 200;

  static final int TYPE_GLOBAL = 0;
  static final int TYPE_CUSTOM = 2;
  private static final long MAX_BODY_BYTES = 64 * 1024;

  private final NamespaceService namespaces;
  private final Supplier<Map<String, Integer>> configCounts;

  /**
   * @param configCounts how many configs each namespace holds, {@code ""} for the public one
   */
  public NamespaceRoutes(NamespaceService namespaces, Supplier<Map<String, Integer>> configCounts) {
    this.namespaces = namespaces;
    this.configCounts = configCounts;
  }

  /** {@code Namespace} as Nacos writes it. */
  record NamespaceJson(
      String namespace,
      String namespaceShowName,
      String namespaceDesc,
      int quota,
      int configCount,
      int type) {}

  @Override
  public void mount(Router router) {
    router.route(HttpMethod.GET, V1_PATH).handler(v1(this::getV1));
    router.route(HttpMethod.POST, V1_PATH).handler(v1(this::createV1));
    router.route(HttpMethod.PUT, V1_PATH).handler(v1(this::updateV1));
    router.route(HttpMethod.DELETE, V1_PATH).handler(v1(this::deleteV1));
    router
        .route(HttpMethod.GET, V2_PATH + "/list")
        .handler(v2((request, params) -> HttpResponses.success(request.response(), list())));
    router.route(HttpMethod.GET, V2_PATH).handler(v2(this::getV2));
    router.route(HttpMethod.POST, V2_PATH).handler(v2(this::createV2));
    router.route(HttpMethod.PUT, V2_PATH).handler(v2(this::updateV2));
    router.route(HttpMethod.DELETE, V2_PATH).handler(v2(this::deleteV2));
  }

  private static Handler<RoutingContext> v1(ParamsHandler handler) {
    return RequestParams.handler(MAX_BODY_BYTES, ApiStyle.V1, handler);
  }

  private static Handler<RoutingContext> v2(ParamsHandler handler) {
    return RequestParams.handler(MAX_BODY_BYTES, ApiStyle.V2, handler);
  }

  private void getV1(HttpServerRequest request, HttpParams params) {
    if (params.is("checkNamespaceIdExist", "true")) {
      String id = params.required("customNamespaceId");
      HttpResponses.ok(request.response(), !id.isBlank() && namespaces.exists(id));
    } else if (params.is("show", "all")) {
      HttpResponses.ok(request.response(), detail(params.required("namespaceId")));
    } else {
      HttpResponses.ok(request.response(), RestResult.ok(null, list()));
    }
  }

  private void getV2(HttpServerRequest request, HttpParams params) {
    HttpResponses.success(request.response(), detail(params.required("namespaceId")));
  }

  /** The public namespace first, then the created ones in creation order. */
  List<NamespaceJson> list() {
    Map<String, Integer> counts = configCounts.get();
    List<NamespaceJson> all = new ArrayList<>();
    all.add(
        new NamespaceJson(
            "",
            NamespaceService.PUBLIC_NAME,
            null,
            QUOTA,
            counts.getOrDefault("", 0),
            TYPE_GLOBAL));
    for (Namespace namespace : namespaces.all()) {
      all.add(custom(namespace, counts));
    }
    return all;
  }

  private NamespaceJson detail(String id) {
    Map<String, Integer> counts = configCounts.get();
    if (NamespaceService.isPublic(id)) {
      return new NamespaceJson(
          id.trim(), "Public", "Public Namespace", QUOTA, counts.getOrDefault("", 0), TYPE_GLOBAL);
    }
    Namespace namespace = namespaces.find(id);
    if (namespace == null) {
      throw new HttpApiException(
          404, NacosErrorCode.NAMESPACE_NOT_EXIST, "namespaceId [ " + id + " ] not exist");
    }
    return custom(namespace, counts);
  }

  private static NamespaceJson custom(Namespace namespace, Map<String, Integer> counts) {
    return new NamespaceJson(
        namespace.id(),
        namespace.name(),
        namespace.description(),
        QUOTA,
        counts.getOrDefault(namespace.id(), 0),
        TYPE_CUSTOM);
  }

  /** v1 answers {@code false} for anything refused (as Nacos does), 503 when it cannot write. */
  private void createV1(HttpServerRequest request, HttpParams params) {
    String id = params.required("customNamespaceId");
    String name = params.required("namespaceName");
    answerV1(
        request,
        namespaces.create(id, name, params.get("namespaceDesc")),
        outcome -> outcome instanceof NamespaceOutcome.Created);
  }

  private void updateV1(HttpServerRequest request, HttpParams params) {
    String id = params.required("namespace");
    String name = params.required("namespaceShowName");
    answerV1(
        request,
        namespaces.update(id, name, params.get("namespaceDesc")),
        outcome -> outcome instanceof NamespaceOutcome.Updated);
  }

  private void deleteV1(HttpServerRequest request, HttpParams params) {
    String id = params.required("namespaceId");
    answerV1(
        request, namespaces.delete(id), outcome -> outcome instanceof NamespaceOutcome.Deleted);
  }

  private void answerV1(
      HttpServerRequest request,
      CompletableFuture<NamespaceOutcome> change,
      Predicate<NamespaceOutcome> succeeded) {
    CompletableFuture<Boolean> answer =
        change.handle(
            (outcome, failure) -> {
              if (failure == null) {
                return succeeded.test(outcome);
              }
              // Nacos's v1 API answers false for input it refuses.
              if (FeatureException.unwrap(failure) instanceof NamespaceException refused
                  && refused.fault() == Fault.INVALID) {
                return false;
              }
              throw new CompletionException(failure);
            });
    AsyncReply.when(answer, request, ApiStyle.V1, ok -> HttpResponses.ok(request.response(), ok));
  }

  private void createV2(HttpServerRequest request, HttpParams params) {
    String id = params.get("namespaceId");
    String name = params.required("namespaceName");
    answerV2(request, namespaces.create(id, name, params.get("namespaceDesc")));
  }

  private void updateV2(HttpServerRequest request, HttpParams params) {
    String id = params.required("namespaceId");
    String name = params.required("namespaceName");
    answerV2(request, namespaces.update(id, name, params.get("namespaceDesc")));
  }

  private void deleteV2(HttpServerRequest request, HttpParams params) {
    answerV2(request, namespaces.delete(params.required("namespaceId")));
  }

  private void answerV2(HttpServerRequest request, CompletableFuture<NamespaceOutcome> change) {
    AsyncReply.when(
        change,
        request,
        ApiStyle.V2,
        NacosErrorCode.ILLEGAL_NAMESPACE,
        outcome -> {
          if (outcome instanceof NamespaceOutcome.AlreadyExists exists) {
            throw new HttpApiException(
                409,
                NacosErrorCode.NAMESPACE_ALREADY_EXIST,
                "namespaceId [" + exists.id() + "] already exist");
          }
          if (outcome instanceof NamespaceOutcome.NotFound missing) {
            throw new HttpApiException(
                404,
                NacosErrorCode.NAMESPACE_NOT_EXIST,
                "namespaceId [ " + missing.id() + " ] not exist");
          }
          HttpResponses.success(request.response(), true);
        });
  }
}
