package io.sluice.server.console;

import io.sluice.flow.InvalidRuleDocumentException;
import io.sluice.flow.RuleDocument;
import io.sluice.flow.RuleKind;
import io.sluice.flow.lane.InvalidLanesException;
import io.sluice.flow.lane.LaneDocument;
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
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The console's governance documents: read one application's rules of one kind, or the namespace's
 * lane document, and save them only when the parser every agent runs accepts them (sluice-flow's
 * {@link RuleDocument} for rules, its {@link LaneDocument} for lanes). A refused document is
 * answered 400 with the parser's message, naming the rule or lane and the field, and nothing is
 * stored. Documents are stored where the agents watch them (Sentinel's Spring Cloud Alibaba
 * convention for rules: group {@code SENTINEL_GROUP}, dataId {@code {app}-flow-rules} and friends;
 * lanes: group {@code SLUICE}, dataId {@code lanes}, one for every application of the namespace),
 * so they survive restarts and reach the agents with the config center's next push.
 *
 * <ul>
 *   <li>{@code GET /nacos/v1/sluice/rules?app=&kind=[&namespaceId=]}: {@code {app, kind, dataId,
 *       group, exists, content, rules}} ({@code rules} describes each rule or lane in force);
 *   <li>{@code POST /nacos/v1/sluice/rules} with {@code app, kind, content[, namespaceId]}: {@code
 *       {dataId, group, rules}}, or 400 with the parser's message.
 * </ul>
 *
 * Kinds: {@code flow}, {@code degrade}, {@code param-flow}, {@code system}, {@code authority}, and
 * {@code lanes} (for which {@code app} may be left out: the document is the namespace's).
 */
public final class RuleRoutes implements HttpRoutes {
  public static final String PATH = "/nacos/v1/sluice/rules";
  public static final String GROUP = "SENTINEL_GROUP";
  public static final String LANES_GROUP = "SLUICE";
  public static final String LANES_DATA_ID = "lanes";

  /** A rule document is a config: the config center's own bound applies, this is the form's. */
  private static final long MAX_BODY_BYTES = 4L * 1024 * 1024;

  private static final Map<String, Kind> KINDS = new LinkedHashMap<>();

  static {
    rules("flow", RuleKind.FLOW);
    rules("degrade", RuleKind.DEGRADE);
    rules("param-flow", RuleKind.PARAM_FLOW);
    rules("system", RuleKind.SYSTEM);
    rules("authority", RuleKind.AUTHORITY);
    KINDS.put(
        "lanes",
        new Kind(
            LANES_GROUP,
            false,
            "{\"lanes\": []}",
            content -> {
              try {
                return LaneDocument.parse(content).describeLanes();
              } catch (InvalidLanesException e) {
                throw new RefusedDocument(e.getMessage());
              }
            }));
  }

  private static void rules(String name, RuleKind kind) {
    KINDS.put(
        name,
        new Kind(
            GROUP,
            true,
            "[]",
            content -> {
              try {
                return RuleDocument.parse(kind, content).describeRules();
              } catch (InvalidRuleDocumentException e) {
                throw new RefusedDocument(e.getMessage());
              }
            }));
  }

  /**
   * One kind of document: where it is stored and the agents' parser that checks it.
   *
   * @param perApp whether each application has its own ({@code {app}-{kind}-rules}) or the
   *     namespace has one ({@code lanes})
   * @param empty what an absent document reads as
   */
  private record Kind(String group, boolean perApp, String empty, Parser parser) {}

  /** The agents' parser: each rule or lane described, or {@link RefusedDocument}. */
  private interface Parser {
    List<String> describe(String content);
  }

  /** The parser refused the document; the message is the parser's. */
  private static final class RefusedDocument extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RefusedDocument(String message) {
      super(message, null, false, false);
    }
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
    String kindName = kind(params);
    Kind kind = KINDS.get(kindName);
    String app = app(params, kind);
    ConfigKey key = config.key(params.get("namespaceId"), kind.group(), dataId(app, kindName));
    ConfigItem item = config.find(key);
    String content = item == null || item.formal() == null ? null : item.formal().content();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("app", app);
    body.put("kind", kindName);
    body.put("dataId", key.dataId());
    body.put("group", kind.group());
    body.put("exists", content != null);
    body.put("content", content == null ? kind.empty() : content);
    try {
      body.put("rules", kind.parser().describe(content == null ? "" : content));
    } catch (RefusedDocument e) {
      body.put("invalid", e.getMessage());
    }
    HttpResponses.ok(request.response(), body);
  }

  private void save(HttpServerRequest request, HttpParams params) {
    String kindName = kind(params);
    Kind kind = KINDS.get(kindName);
    String app = app(params, kind);
    String content = params.required("content");
    List<String> described;
    try {
      described = kind.parser().describe(content);
    } catch (RefusedDocument e) {
      throw HttpApiException.invalid(e.getMessage());
    }
    ConfigKey key = config.key(params.get("namespaceId"), kind.group(), dataId(app, kindName));
    ConfigMeta meta =
        ConfigMeta.builder()
            .type("json")
            .appName(app) // null for the lanes, which are every application's
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
          body.put("group", kind.group());
          body.put("rules", described);
          HttpResponses.ok(request.response(), body);
        });
  }

  /** The application, required for per-application rules; null for the namespace's lanes. */
  private static String app(HttpParams params, Kind kind) {
    if (!kind.perApp()) {
      return null;
    }
    return app(params);
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
    return kind.equals("lanes") ? LANES_DATA_ID : app + "-" + kind + "-rules";
  }
}
