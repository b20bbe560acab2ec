package io.sluice.server.config.http;

import io.sluice.server.config.ConfigHistoryEntry;
import io.sluice.server.config.ConfigKey;
import io.sluice.server.config.ConfigService;
import io.sluice.server.protocol.http.ApiStyle;
import io.sluice.server.protocol.http.AsyncReply;
import io.sluice.server.protocol.http.HttpApiException;
import io.sluice.server.protocol.http.HttpParams;
import io.sluice.server.protocol.http.HttpResponses;
import io.sluice.server.protocol.http.NacosErrorCode;
import io.sluice.server.protocol.http.RequestParams;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import java.util.Optional;

/**
 * Config history over HTTP: v1 {@code /nacos/v1/cs/history} (a page with {@code search=accurate},
 * one entry by {@code nid}), {@code /history/previous}, {@code /history/configs}, and the same
 * under v2 {@code /nacos/v2/cs/history} ({@code /list} for the page) in the v2 envelope.
 *
 * <p>History entries live on disk, so they are read on a worker thread, never on the event loop. An
 * entry's {@code id} is its history id; {@code previous?id=} returns the entry before that id for
 * the same config, so passing a config's id (as {@code ?show=all} reports it, the id of the publish
 * that made the current version) gives the version before the current one.
 */
final class HistoryRoutes {
  static final String V1_PATH = "/nacos/v1/cs/history";
  static final String V2_PATH = "/nacos/v2/cs/history";
  static final int DEFAULT_PAGE_SIZE = 100;
  static final int MAX_PAGE_SIZE = 500;
  static final String NOT_YOURS = "Please check dataId, group or namespaceId.";

  private final ConfigService config;

  HistoryRoutes(ConfigService config) {
    this.config = config;
  }

  void mount(Router router) {
    router
        .route(HttpMethod.GET, V1_PATH)
        .handler(
            RequestParams.handler(
                0,
                ApiStyle.V1,
                (request, params) -> {
                  if (params.is("search", "accurate")) {
                    list(request, params, ApiStyle.V1);
                  } else {
                    entry(request, params, ApiStyle.V1);
                  }
                }));
    router
        .route(HttpMethod.GET, V1_PATH + "/previous")
        .handler(RequestParams.handler(0, ApiStyle.V1, (r, p) -> previous(r, p, ApiStyle.V1)));
    router
        .route(HttpMethod.GET, V1_PATH + "/configs")
        .handler(RequestParams.handler(0, ApiStyle.V1, (r, p) -> configs(r, p, ApiStyle.V1)));
    router
        .route(HttpMethod.GET, V2_PATH + "/list")
        .handler(RequestParams.handler(0, ApiStyle.V2, (r, p) -> list(r, p, ApiStyle.V2)));
    router
        .route(HttpMethod.GET, V2_PATH)
        .handler(RequestParams.handler(0, ApiStyle.V2, (r, p) -> entry(r, p, ApiStyle.V2)));
    router
        .route(HttpMethod.GET, V2_PATH + "/previous")
        .handler(RequestParams.handler(0, ApiStyle.V2, (r, p) -> previous(r, p, ApiStyle.V2)));
    router
        .route(HttpMethod.GET, V2_PATH + "/configs")
        .handler(RequestParams.handler(0, ApiStyle.V2, (r, p) -> configs(r, p, ApiStyle.V2)));
  }

  private void list(HttpServerRequest request, HttpParams params, ApiStyle style) {
    ConfigKey key = key(params, style);
    int pageNo = params.intInRange("pageNo", 1, 1, Integer.MAX_VALUE);
    int pageSize =
        Math.min(
            MAX_PAGE_SIZE, params.intInRange("pageSize", DEFAULT_PAGE_SIZE, 1, Integer.MAX_VALUE));
    AsyncReply.offEventLoop(
        request,
        style,
        () ->
            ConfigJson.page(
                config.history(key, pageNo, pageSize), ConfigJson.ConfigHistoryInfo::summaryOf),
        page -> reply(request, style, page));
  }

  private void entry(HttpServerRequest request, HttpParams params, ApiStyle style) {
    ConfigKey key = key(params, style);
    long nid = params.requiredLong("nid");
    AsyncReply.offEventLoop(
        request,
        style,
        () -> config.historyEntry(nid),
        found ->
            answerEntry(
                request,
                style,
                key,
                found,
                "certain config history for nid = " + nid + " not exist"));
  }

  private void previous(HttpServerRequest request, HttpParams params, ApiStyle style) {
    ConfigKey key = key(params, style);
    long id = params.requiredLong("id");
    AsyncReply.offEventLoop(
        request,
        style,
        () -> config.previousHistoryEntry(key, id),
        found ->
            answerEntry(
                request,
                style,
                key,
                found,
                "previous config history for id = " + id + " not exist"));
  }

  private void configs(HttpServerRequest request, HttpParams params, ApiStyle style) {
    String namespace =
        style == ApiStyle.V1 ? params.required("tenant") : params.required("namespaceId");
    config.checkNamespace(ConfigKey.canonicalNamespace(namespace));
    AsyncReply.offEventLoop(
        request,
        style,
        () ->
            config.inNamespace(namespace).stream().map(ConfigJson.ConfigInfoWrapper::new).toList(),
        configs -> reply(request, style, configs));
  }

  /**
   * One entry, checked to belong to the config named in the request (as Nacos checks it). Nacos v1
   * answers a missing entry with an empty 200; v2 answers 404.
   */
  private static void answerEntry(
      HttpServerRequest request,
      ApiStyle style,
      ConfigKey key,
      Optional<ConfigHistoryEntry> found,
      String notFound) {
    if (found.isEmpty()) {
      if (style == ApiStyle.V1) {
        HttpResponses.empty(request.response(), 200);
        return;
      }
      throw new HttpApiException(404, NacosErrorCode.RESOURCE_NOT_FOUND, notFound);
    }
    ConfigHistoryEntry entry = found.get();
    if (!entry.key().equals(key)) {
      throw new HttpApiException(403, NacosErrorCode.ACCESS_DENIED, NOT_YOURS);
    }
    reply(request, style, ConfigJson.ConfigHistoryInfo.detailOf(entry));
  }

  private ConfigKey key(HttpParams params, ApiStyle style) {
    String dataId = params.required("dataId");
    String group = params.required("group");
    String namespace =
        style == ApiStyle.V1 ? params.get("tenant") : params.firstOf("namespaceId", "tenant");
    return config.key(ConfigKey.canonicalNamespace(namespace), group, dataId);
  }

  private static void reply(HttpServerRequest request, ApiStyle style, Object data) {
    if (style == ApiStyle.V1) {
      HttpResponses.ok(request.response(), data);
    } else {
      HttpResponses.success(request.response(), data);
    }
  }
}
