package io.sluice.server.config.http;

import io.sluice.server.config.ConfigCriteria;
import io.sluice.server.config.ConfigItem;
import io.sluice.server.config.ConfigKey;
import io.sluice.server.config.ConfigMeta;
import io.sluice.server.config.ConfigOutcome;
import io.sluice.server.config.ConfigPublish;
import io.sluice.server.config.ConfigService;
import io.sluice.server.config.ConfigTarget;
import io.sluice.server.config.ConfigVersion;
import io.sluice.server.protocol.http.ApiStyle;
import io.sluice.server.protocol.http.AsyncReply;
import io.sluice.server.protocol.http.ClientIp;
import io.sluice.server.protocol.http.HttpApiException;
import io.sluice.server.protocol.http.HttpParams;
import io.sluice.server.protocol.http.HttpResponses;
import io.sluice.server.protocol.http.NacosErrorCode;
import io.sluice.server.protocol.http.ParamsHandler;
import io.sluice.server.protocol.http.RequestParams;
import io.sluice.server.protocol.http.RestResult;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Config reads and writes over HTTP: Nacos's v1 {@code /nacos/v1/cs/configs} (raw content, {@code
 * true}/{@code false} bodies, the console's {@code show=all}, {@code search}, {@code beta} and
 * {@code delType=ids} variants) and v2 {@code /nacos/v2/cs/config} (the {@code {code,message,data}}
 * envelope, {@code namespaceId} instead of {@code tenant}). Semantics are those of the gRPC
 * handlers: the same version selection, validation and failure mapping.
 */
final class ConfigRoutes {
  static final String V1_PATH = "/nacos/v1/cs/configs";
  static final String V2_PATH = "/nacos/v2/cs/config";
  static final String NOT_FOUND = "config data not exist";
  static final String CAS_CONFLICT = "Cas publish fail, server md5 may have changed.";
  static final int MAX_IDS_PER_DELETE = 1_000;

  /** Nacos's {@code ConfigType}s; any other type is stored as {@code text}, as Nacos does. */
  private static final Set<String> KNOWN_TYPES =
      Set.of("properties", "xml", "json", "text", "html", "yaml", "toml", "unset");

  private static final String VIPSERVER_TAG = "Vipserver-Tag";
  private static final DateTimeFormatter HTTP_DATE =
      DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
          .withZone(ZoneOffset.UTC);

  private final ConfigService config;
  private final long maxBodyBytes;

  ConfigRoutes(ConfigService config, long maxBodyBytes) {
    this.config = config;
    this.maxBodyBytes = maxBodyBytes;
  }

  void mount(Router router) {
    router.route(HttpMethod.GET, V1_PATH).handler(v1(this::getV1));
    router.route(HttpMethod.POST, V1_PATH).handler(v1((r, p) -> publish(r, p, ApiStyle.V1)));
    router.route(HttpMethod.DELETE, V1_PATH).handler(v1(this::deleteV1));
    router.route(HttpMethod.GET, V2_PATH).handler(v2((r, p) -> read(r, p, ApiStyle.V2)));
    router.route(HttpMethod.POST, V2_PATH).handler(v2((r, p) -> publish(r, p, ApiStyle.V2)));
    router.route(HttpMethod.DELETE, V2_PATH).handler(v2((r, p) -> remove(r, p, ApiStyle.V2)));
  }

  private Handler<RoutingContext> v1(ParamsHandler handler) {
    return RequestParams.handler(maxBodyBytes, ApiStyle.V1, handler);
  }

  private Handler<RoutingContext> v2(ParamsHandler handler) {
    return RequestParams.handler(maxBodyBytes, ApiStyle.V2, handler);
  }

  private void getV1(HttpServerRequest request, HttpParams params) {
    if (params.is("show", "all")) {
      detail(request, params);
    } else if (params.is("beta", "true")) {
      queryBeta(request, params);
    } else if (params.is("search", "accurate") || params.is("search", "blur")) {
      search(request, params);
    } else {
      read(request, params, ApiStyle.V1);
    }
  }

  private void deleteV1(HttpServerRequest request, HttpParams params) {
    if (params.is("delType", "ids")) {
      deleteByIds(request, params);
    } else if (params.is("beta", "true")) {
      stopBeta(request, params);
    } else {
      remove(request, params, ApiStyle.V1);
    }
  }

  /** The content a client gets, raw (v1) or in the envelope (v2), with Nacos's headers. */
  private void read(HttpServerRequest request, HttpParams params, ApiStyle style) {
    // Linearizable: in a cluster the read waits for this node to hold every acknowledged write.
    CompletableFuture<ConfigItem> read = config.read(key(params, style));
    if (read.isDone() && !read.isCompletedExceptionally()) {
      answerRead(request, params, style, read.join());
    } else {
      AsyncReply.when(read, request, style, item -> answerRead(request, params, style, item));
    }
  }

  private void answerRead(
      HttpServerRequest request, HttpParams params, ApiStyle style, ConfigItem item) {
    String tag = params.get("tag");
    ConfigVersion version =
        item == null
            ? null
            : item.versionFor(
                ClientIp.of(request),
                ClientIp.ofSocket(request),
                tag,
                request.getHeader(VIPSERVER_TAG));
    HttpServerResponse response = request.response();
    if (version == null) {
      if (style == ApiStyle.V1) {
        HttpResponses.text(response, 404, NOT_FOUND + "\n");
      } else {
        throw new HttpApiException(404, NacosErrorCode.RESOURCE_NOT_FOUND, NOT_FOUND);
      }
      return;
    }
    String type = item.formal() != null ? item.formal().typeOrDefault() : version.typeOrDefault();
    response
        .putHeader("Config-Type", type)
        .putHeader("Content-MD5", version.md5())
        .putHeader(
            "Last-Modified", HTTP_DATE.format(Instant.ofEpochMilli(version.modifiedMillis())));
    ListenerRoutes.noCache(response);
    if (version.meta().encryptedDataKey() != null) {
      response.putHeader("Encrypted-Data-Key", version.meta().encryptedDataKey());
    }
    if (version == item.beta()) {
      response.putHeader("isBeta", "true");
    } else if (version != item.formal()) {
      String versionTag = item.tagOf(version);
      if (versionTag != null) {
        response.putHeader(VIPSERVER_TAG, URLEncoder.encode(versionTag, StandardCharsets.UTF_8));
      }
    }
    if (style == ApiStyle.V1) {
      HttpResponses.body(response, 200, contentTypeOf(type), version.content());
    } else {
      HttpResponses.success(response, version.content());
    }
  }

  private void publish(HttpServerRequest request, HttpParams params, ApiStyle style) {
    String dataId = params.required("dataId");
    String group = params.required("group");
    String content = params.required("content");
    if (style == ApiStyle.V2) {
      requireNonBlank("dataId", dataId);
      requireNonBlank("group", group);
      requireNonBlank("content", content);
    }
    String type = params.get("type");
    if (type == null || !KNOWN_TYPES.contains(type)) {
      type = ConfigVersion.DEFAULT_TYPE;
    }
    ConfigMeta meta =
        ConfigMeta.builder()
            .type(type)
            .appName(params.get("appName"))
            .desc(params.get("desc"))
            .configTags(params.firstOf("config_tags", "configTags"))
            .encryptedDataKey(params.get("encryptedDataKey"))
            .srcUser(params.firstOf("src_user", "srcUser"))
            .srcIp(ClientIp.of(request))
            .use(params.get("use"))
            .effect(params.get("effect"))
            .schema(params.get("schema"))
            .build();
    ConfigPublish publish =
        ConfigPublish.of(
            ConfigKey.of(namespaceParam(params, style), group, dataId),
            params.get("tag"),
            request.getHeader("betaIps"),
            content,
            meta,
            request.getHeader("casMd5"));
    AsyncReply.when(
        config.publish(publish),
        request,
        style,
        outcome -> {
          if (outcome instanceof ConfigOutcome.CasConflict) {
            if (style == ApiStyle.V1) {
              // A non-2xx status, so HTTP clients that check only the status see the failure.
              HttpResponses.json(request.response(), 409, Boolean.FALSE);
              return;
            }
            throw new HttpApiException(409, NacosErrorCode.RESOURCE_CONFLICT, CAS_CONFLICT);
          }
          reply(request.response(), style, Boolean.TRUE);
        });
  }

  private void remove(HttpServerRequest request, HttpParams params, ApiStyle style) {
    ConfigKey key = key(params, style);
    String tag = params.get("tag");
    boolean tagged = tag != null && !tag.isBlank();
    AsyncReply.when(
        config.remove(
            key,
            tagged ? ConfigTarget.TAG : ConfigTarget.FORMAL,
            tagged ? tag.trim() : null,
            params.firstOf("src_user", "srcUser"),
            ClientIp.of(request)),
        request,
        style,
        outcome -> {
          reply(request.response(), style, Boolean.TRUE);
        });
  }

  private void stopBeta(HttpServerRequest request, HttpParams params) {
    ConfigKey key = key(params, ApiStyle.V1);
    AsyncReply.when(
        config.remove(key, ConfigTarget.BETA, null, null, ClientIp.of(request)),
        request,
        ApiStyle.V1,
        outcome -> HttpResponses.ok(request.response(), RestResult.ok("stop beta ok", true)));
  }

  private void queryBeta(HttpServerRequest request, HttpParams params) {
    ConfigItem item = config.find(key(params, ApiStyle.V1));
    ConfigJson.ConfigInfo4Beta beta =
        item == null || item.beta() == null ? null : new ConfigJson.ConfigInfo4Beta(item);
    HttpResponses.ok(request.response(), RestResult.ok("query beta ok", beta));
  }

  /** The console's detail view; an empty 200 when the config does not exist, as in Nacos. */
  private void detail(HttpServerRequest request, HttpParams params) {
    ConfigItem item = config.find(key(params, ApiStyle.V1));
    if (item == null || item.formal() == null) {
      HttpResponses.empty(request.response(), 200);
      return;
    }
    HttpResponses.ok(request.response(), new ConfigJson.ConfigAllInfo(item.key(), item.formal()));
  }

  private void search(HttpServerRequest request, HttpParams params) {
    ConfigCriteria criteria =
        new ConfigCriteria(
            params.is("search", "blur"),
            params.getOrDefault("tenant", ""),
            params.required("dataId"),
            params.required("group"),
            params.get("appName"),
            params.get("config_tags"));
    int pageNo = params.requiredInt("pageNo", 1, Integer.MAX_VALUE);
    int pageSize = params.requiredInt("pageSize", 1, ConfigService.MAX_SEARCH_PAGE_SIZE);
    // A search scans and sorts every config: milliseconds at 100k of them, too long for the event
    // loop, which would stall every other connection it serves meanwhile. A worker scans; the
    // answer is written back on the request's own event loop.
    AsyncReply.offEventLoop(
        request,
        ApiStyle.V1,
        () -> ConfigJson.page(config.search(criteria, pageNo, pageSize), ConfigJson.ConfigInfo::of),
        page -> HttpResponses.ok(request.response(), page));
  }

  private void deleteByIds(HttpServerRequest request, HttpParams params) {
    Set<Long> ids = new LinkedHashSet<>();
    for (String id : params.required("ids").split(",")) {
      if (id.isBlank()) {
        continue;
      }
      try {
        ids.add(Long.parseLong(id.trim()));
      } catch (NumberFormatException e) {
        throw HttpApiException.invalid("ids must be numbers separated by commas");
      }
      if (ids.size() > MAX_IDS_PER_DELETE) {
        throw HttpApiException.invalid("at most " + MAX_IDS_PER_DELETE + " ids at once");
      }
    }
    String srcIp = ClientIp.of(request);
    // Finding the configs scans them all: on a worker, like a search.
    CompletionStage<Integer> removed =
        Vertx.currentContext()
            .executeBlocking(() -> config.removeByIds(ids, srcIp), false)
            .toCompletionStage()
            .thenCompose(removal -> removal);
    AsyncReply.when(
        removed,
        request,
        ApiStyle.V1,
        done -> HttpResponses.ok(request.response(), RestResult.ok(null, true)));
  }

  private ConfigKey key(HttpParams params, ApiStyle style) {
    String dataId = params.required("dataId");
    String group = params.required("group");
    String namespace = namespaceParam(params, style);
    return config.key(namespace, group, dataId);
  }

  /** v1 names the namespace {@code tenant}, v2 {@code namespaceId} (and still accepts tenant). */
  private static String namespaceParam(HttpParams params, ApiStyle style) {
    String namespace =
        style == ApiStyle.V1 ? params.get("tenant") : params.firstOf("namespaceId", "tenant");
    return namespace == null ? "" : namespace.trim();
  }

  private static void reply(HttpServerResponse response, ApiStyle style, Object data) {
    if (style == ApiStyle.V1) {
      HttpResponses.ok(response, data);
    } else {
      HttpResponses.success(response, data);
    }
  }

  private static void requireNonBlank(String name, String value) {
    if (value.isBlank()) {
      throw new HttpApiException(
          400,
          NacosErrorCode.PARAMETER_MISSING,
          "Required parameter '" + name + "' type String is not present");
    }
  }

  static String contentTypeOf(String type) {
    return switch (type.toLowerCase(Locale.ROOT)) {
      case "json" -> HttpResponses.APPLICATION_JSON;
      case "xml" -> "application/xml;charset=UTF-8";
      case "html", "htm" -> "text/html;charset=UTF-8";
      default -> HttpResponses.TEXT_PLAIN;
    };
  }
}
