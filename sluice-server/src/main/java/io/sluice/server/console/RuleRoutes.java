package io.sluice.server.console;

import io.sluice.flow.InvalidRuleDocumentException;
import io.sluice.flow.RuleDocument;
import io.sluice.flow.RuleKind;
import io.sluice.server.config.ConfigItem;
import io.sluice.server.config.ConfigKey;
import io.sluice.server.config.ConfigMeta;
import io.sluice.server.config.ConfigOutcome;
import io.sluice.server.config.ConfigPublish;
import io.sluice.server.config.ConfigService;
import io.sluice.server.protocol.http.ApiStyle;
import io.sluice.server.protocol.http.AsyncReply;
import io.sluice.server.protocol.http.ClientIp;
import io.sluice.server.protocol.http.HttpApiException;
import io.sluice.server.protocol.http.HttpParams;
import io.sluice.server.protocol.http.HttpResponses;
import io.sluice.server.protocol.http.HttpRoutes;
import io.sluice.server.protocol.http.RequestParams;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The console's governance rules: read one application's rules of one kind, and save them only when
 * sluice-flow's parser (the one every agent runs) accepts them. A refused document is answered 400
 * with the parser's message, naming the rule and the field, and nothing is stored. Rules are stored
 * where the agents watch them (Sentinel's Spring Cloud Alibaba convention: group {@code
 * SENTINEL_GROUP}, dataId {@code {app}-flow-rules} and friends), so they survive restarts and reach
 * the agents with the config center's next push.
 *
 * <ul>
 *   <li>{@code GET /nacos/v1/sluice/rules?app=&kind=[&namespaceId=]}: {@code {app, kind, dataId,
 *       group, exists, content, rules}} ({@code rules} describes each rule in force);
 *   <li>{@code POST /nacos/v1/sluice/rules} with {@code app, kind, content[, namespaceId]}: {@code
 *       {dataId, group, rules}}, or 400 with the parser's message.
 * </ul>
 *
 * Kinds: {@code flow}, {@code degrade}, {@code param-flow}, {@code system}, {@code authority}.
 */
public final class RuleRoutes implements HttpRoutes {
  public static final String PATH = "/nacos/v1/sluice/rules";
  public static final String GROUP = "SENTINEL_GROUP";

  /** A rule document is a config: the config center's own bound applies, this is the form's. */
  private static final long MAX_BODY_BYTES = 4L * 1024 * 1024;

  private static final Map<String, RuleKind> KINDS = new LinkedHashMap<>();

  static {
    KINDS.put("flow", RuleKind.FLOW);
    KINDS.put("degrade", RuleKind.DEGRADE);
    KINDS.put("param-flow", RuleKind.PARAM_FLOW);
    KINDS.put("system", RuleKind.SYSTEM);
    KINDS.put("authority", RuleKind.AUTHORITY);
  }

  private final ConfigService config;

  public RuleRoutes(ConfigService config) {
    this.config = config;
  }

  @Override
  public void mount(Router router) {
    router.route(HttpMethod.GET, PATH).handler(RequestParams.handler(0, ApiStyle.V1, this::read));
    router
        .route(HttpMethod.POST, PATH)
        .handler(RequestParams.handler(MAX_BODY_BYTES, ApiStyle.V1, this::save));
  }

  private void read(HttpServerRequest request, HttpParams params) {
    String app = app(params);
    String kind = kind(params);
    ConfigKey key = config.key(params.get("namespaceId"), GROUP, dataId(app, kind));
    ConfigItem item = config.find(key);
    String content = item == null || item.formal() == null ? null : item.formal().content();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("app", app);
    body.put("kind", kind);
    body.put("dataId", key.dataId());
    body.put("group", GROUP);
    body.put("exists", content != null);
    body.put("content", content == null ? "[]" : content);
    try {
      body.put(
          "rules",
          RuleDocument.parse(KINDS.get(kind), content == null ? "" : content).describeRules());
    } catch (InvalidRuleDocumentException e) {
      body.put("invalid", e.getMessage());
    }
    HttpResponses.ok(request.response(), body);
  }

  private void save(HttpServerRequest request, HttpParams params) {
    String app = app(params);
    String kind = kind(params);
    String content = params.required("content");
    RuleDocument document;
    try {
      document = RuleDocument.parse(KINDS.get(kind), content);
    } catch (InvalidRuleDocumentException e) {
      throw HttpApiException.invalid(e.getMessage());
    }
    ConfigKey key = config.key(params.get("namespaceId"), GROUP, dataId(app, kind));
    ConfigMeta meta =
        ConfigMeta.builder()
            .type("json")
            .appName(app)
            .srcUser("sluice-console")
            .srcIp(ClientIp.of(request))
            .build();
    AsyncReply.when(
        config.publish(ConfigPublish.of(key, null, null, content, meta, null)),
        request,
        ApiStyle.V1,
        outcome -> {
          if (!(outcome instanceof ConfigOutcome.Published)) {
            throw new IllegalStateException("publishing " + key + " answered " + outcome);
          }
          Map<String, Object> body = new LinkedHashMap<>();
          body.put("dataId", key.dataId());
          body.put("group", GROUP);
          body.put("rules", document.describeRules());
          HttpResponses.ok(request.response(), body);
        });
  }

  private static String app(HttpParams params) {
    String app = params.required("app").trim();
    if (app.isEmpty() || app.length() > 128) {
      throw HttpApiException.invalid("app must be 1 to 128 characters");
    }
    return app;
  }

  private static String kind(HttpParams params) {
    String kind = params.required("kind").toLowerCase(Locale.ROOT);
    if (!KINDS.containsKey(kind)) {
      throw HttpApiException.invalid(
          "kind must be one of " + KINDS.keySet() + ", was '" + kind + "'");
    }
    return kind;
  }

  static String dataId(String app, String kind) {
    return app + "-" + kind + "-rules";
  }
}
