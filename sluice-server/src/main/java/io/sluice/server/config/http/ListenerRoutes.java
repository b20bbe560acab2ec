package io.sluice.server.config.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.cluster.http.MemberCalls;
import io.sluice.server.config.ConfigItem;
import io.sluice.server.config.ConfigKey;
import io.sluice.server.config.ConfigService;
import io.sluice.server.config.ConfigVersion;
import io.sluice.server.config.ConfigWatcher;
import io.sluice.server.config.http.ListeningConfigs.Listen;
import io.sluice.server.protocol.http.ApiStyle;
import io.sluice.server.protocol.http.AsyncReply;
import io.sluice.server.protocol.http.ClientIp;
import io.sluice.server.protocol.http.HttpAccess;
import io.sluice.server.protocol.http.HttpApiException;
import io.sluice.server.protocol.http.HttpParams;
import io.sluice.server.protocol.http.HttpResponses;
import io.sluice.server.protocol.http.RequestParams;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import java.io.IOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Nacos's HTTP config listener: {@code POST /nacos/v1/cs/configs/listener}, the long-poll that 1.x
 * clients, other-language SDKs and Sluice's agent use, and {@code GET} of the same path, which
 * lists who listens to a config.
 *
 * <p>A poll with {@code Long-Pulling-Timeout} is answered at once with the configs whose md5
 * differs from the client's (beta and tag aware, as a read would see them); if none differs it is
 * held for {@code max(10 s, timeout - 500 ms)} and answered as soon as one of its configs changes,
 * or empty at the deadline. {@code Long-Pulling-Timeout-No-Hangup: true} answers at once even when
 * nothing changed. Without the timeout header (short polling) the answer goes in the {@code
 * Probe-Modify-Response} headers, as Nacos does for old clients.
 */
final class ListenerRoutes {
  static final String PATH = "/nacos/v1/cs/configs/listener";
  static final String TIMEOUT_HEADER = "Long-Pulling-Timeout";
  static final String NO_HANGUP_HEADER = "Long-Pulling-Timeout-No-Hangup";
  static final long MIN_HOLD_MILLIS = 10_000;
  static final long HOLD_MARGIN_MILLIS = 500;

  /** Nacos sets no upper bound; a hold is a resource, so it gets one. */
  static final long MAX_HOLD_MILLIS = 5 * 60_000;

  /** 10,000 listened configs with long names, URL-encoded, fit easily. */
  static final long MAX_BODY_BYTES = 16L * 1024 * 1024;

  private static final String VIPSERVER_TAG = "Vipserver-Tag";
  private static final int FIRST_VERSION_WITH_BODY = 204;

  private final ConfigService config;
  private final HeldPolls held;
  private final MemberCalls members;
  private final ObjectMapper json = new ObjectMapper();

  ListenerRoutes(ConfigService config, HeldPolls held, MemberCalls members) {
    this.config = config;
    this.held = held;
    this.members = members;
  }

  void mount(Router router) {
    router
        .route(HttpMethod.GET, PATH)
        .handler(RequestParams.handler(0, ApiStyle.V1, this::listListeners));
  }

  boolean takeDirectly(HttpServerRequest request, HttpAccess access) {
    if (request.method() != HttpMethod.POST || !PATH.equals(request.path())) {
      return false;
    }
    RequestParams.read(request, MAX_BODY_BYTES, ApiStyle.V1, access, this::poll);
    return true;
  }

  private void poll(HttpServerRequest request, HttpParams params) {
    List<Listen> listens = parse(params.get("Listening-Configs"));
    String reportedIp = ClientIp.of(request);
    String remoteIp = ClientIp.ofSocket(request);
    String headerTag = request.getHeader(VIPSERVER_TAG);
    HttpServerResponse response = request.response();
    String timeoutHeader = request.getHeader(TIMEOUT_HEADER);
    if (timeoutHeader == null) {
      shortPoll(request, changed(listens, reportedIp, remoteIp, headerTag));
      return;
    }
    long holdMillis = holdMillis(timeoutHeader);
    List<Listen> changed = changed(listens, reportedIp, remoteIp, headerTag);
    if (!changed.isEmpty()) {
      noCache(response);
      HttpResponses.text(response, 200, ListeningConfigs.encode(changed) + "\n");
      return;
    }
    if ("true".equalsIgnoreCase(request.getHeader(NO_HANGUP_HEADER))) {
      HttpResponses.empty(response, 200);
      return;
    }
    hold(request, listens, reportedIp, remoteIp, headerTag, holdMillis);
  }

  private void hold(
      HttpServerRequest request,
      List<Listen> listens,
      String reportedIp,
      String remoteIp,
      String headerTag,
      long holdMillis) {
    ConfigKey[] keys = new ConfigKey[listens.size()];
    boolean[] spelledPublic = null;
    for (int i = 0; i < keys.length; i++) {
      Listen listen = listens.get(i);
      // Share the store's key objects where the config exists: the parsed copies are garbage then.
      ConfigItem item = config.find(listen.key());
      keys[i] = item == null ? listen.key() : item.key();
      if (listen.spelledPublic()) {
        if (spelledPublic == null) {
          spelledPublic = new boolean[keys.length];
        }
        spelledPublic[i] = true;
      }
    }
    HttpServerResponse response = request.response();
    Context context = Vertx.currentContext();
    long deadline = held.clock().nanoTime() + TimeUnit.MILLISECONDS.toNanos(holdMillis);
    HeldPoll poll =
        new HeldPoll(held, response, context, keys, spelledPublic, reportedIp, remoteIp, deadline);
    if (!held.hold(poll)) {
      throw HttpApiException.unavailable("too many long-polls are held; try again later");
    }
    response.closeHandler(poll);
    if (response.closed()) {
      poll.handle(null);
      return;
    }
    // A change applied between the first comparison and the watch would have gone unseen.
    List<Listen> changedMeanwhile = changed(listens, reportedIp, remoteIp, headerTag);
    if (!changedMeanwhile.isEmpty()) {
      poll.answerNow(ListeningConfigs.encode(changedMeanwhile));
    }
  }

  private void shortPoll(HttpServerRequest request, List<Listen> changed) {
    HttpServerResponse response = request.response();
    String encoded = ListeningConfigs.encode(changed);
    response.putHeader("Probe-Modify-Response", ListeningConfigs.encodeOldStyle(changed));
    response.putHeader("Probe-Modify-Response-New", encoded);
    noCache(response);
    boolean newClient =
        versionNumber(request.getHeader("Client-Version")) >= FIRST_VERSION_WITH_BODY;
    HttpResponses.text(response, 200, newClient ? encoded : "");
  }

  private List<Listen> changed(
      List<Listen> listens, String reportedIp, String remoteIp, String headerTag) {
    List<Listen> changed = new ArrayList<>();
    for (Listen listen : listens) {
      ConfigItem item = config.find(listen.key());
      ConfigVersion version =
          item == null ? null : item.versionFor(reportedIp, remoteIp, null, headerTag);
      String serverMd5 = version == null ? "" : version.md5();
      if (!serverMd5.equals(listen.md5())) {
        changed.add(listen);
      }
    }
    return changed;
  }

  /**
   * GET: who listens to a config, {@code {collectStatus, lisentersGroupkeyStatus: {ip: md5}}} as
   * Nacos answers. Listeners are held by the node a client is connected to, so unless {@code
   * aggregation=false} (the members' own call) every other member is asked too, with the caller's
   * token, as Nacos collects them; Sluice adds {@code listeners} (each client's address, md5 and
   * {@code node}, where clients on one host count once per node) and {@code missing} (the members
   * that did not answer).
   */
  private void listListeners(HttpServerRequest request, HttpParams params) {
    String dataId = params.required("dataId");
    String group = params.required("group");
    if (group.isBlank()) {
      group = "DEFAULT_GROUP";
    }
    String tenant = params.get("tenant");
    ConfigKey key = ConfigKey.of(tenant, group, dataId);
    if (params.is("aggregation", "false") || members.others().isEmpty()) {
      HttpResponses.ok(request.response(), new ConfigJson.ListenerStatus(200, listening(key)));
      return;
    }
    String query =
        PATH
            + "?aggregation=false&dataId="
            + encode(dataId)
            + "&group="
            + encode(group)
            + (tenant == null ? "" : "&tenant=" + encode(tenant));
    AsyncReply.when(
        members
            .askOthers(query, MemberCalls.callerToken(request, params), this::readListeners)
            .thenApplyAsync(
                gathered -> {
                  Map<String, String> status = new TreeMap<>();
                  List<ConfigJson.Listener> listeners = new ArrayList<>();
                  listening(key)
                      .forEach(
                          (ip, md5) ->
                              listeners.add(
                                  new ConfigJson.Listener(ip, md5, members.selfAddress())));
                  for (MemberCalls.Answer<Map<String, String>> answer : gathered.answers()) {
                    answer
                        .value()
                        .forEach(
                            (ip, md5) ->
                                listeners.add(new ConfigJson.Listener(ip, md5, answer.address())));
                  }
                  listeners.sort(
                      Comparator.comparing(ConfigJson.Listener::ip)
                          .thenComparing(ConfigJson.Listener::node));
                  for (ConfigJson.Listener listener : listeners) {
                    status.putIfAbsent(listener.ip(), listener.md5());
                  }
                  return new ConfigJson.ClusterListenerStatus(
                      200, status, listeners, gathered.missing());
                },
                members.worker()),
        request,
        ApiStyle.V1,
        body -> HttpResponses.ok(request.response(), body));
  }

  /**
   * A member's listeners, address to md5, from its {@code lisentersGroupkeyStatus}; throws when the
   * answer has none (the member is then named missing, {@link MemberCalls#ask}).
   */
  private Map<String, String> readListeners(String body) throws IOException {
    JsonNode status = json.readTree(body).path("lisentersGroupkeyStatus");
    if (!status.isObject()) {
      throw new IllegalArgumentException("no 'lisentersGroupkeyStatus' in the answer");
    }
    Map<String, String> listeners = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : status.properties()) {
      listeners.put(e.getKey(), e.getValue().asText());
    }
    return listeners;
  }

  /** This node's listeners of {@code key}: each client's reported address and the md5 it holds. */
  private Map<String, String> listening(ConfigKey key) {
    ConfigItem item = config.find(key);
    Map<String, String> status = new TreeMap<>();
    for (ConfigWatcher watcher : config.watchersOf(key)) {
      ConfigVersion version =
          item == null
              ? null
              : item.versionFor(watcher.reportedIp(), watcher.remoteIp(), null, null);
      // A watcher waits only while it is up to date, so what it holds is what it would read.
      status.put(watcher.reportedIp(), version == null ? "" : version.md5());
    }
    return status;
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  static void noCache(HttpServerResponse response) {
    response
        .putHeader("Pragma", "no-cache")
        .putHeader("Expires", "Thu, 01 Jan 1970 00:00:00 GMT")
        .putHeader("Cache-Control", "no-cache,no-store");
  }

  private static List<Listen> parse(String value) {
    if (value == null || value.isBlank()) {
      throw HttpApiException.invalid("invalid probeModify: Listening-Configs is missing");
    }
    String decoded;
    try {
      // Nacos decodes the form value once more; harmless for the characters names may hold.
      decoded = value.indexOf('%') >= 0 ? URLDecoder.decode(value, StandardCharsets.UTF_8) : value;
    } catch (IllegalArgumentException e) {
      throw HttpApiException.invalid("invalid probeModify: " + e.getMessage());
    }
    try {
      return ListeningConfigs.parse(decoded);
    } catch (ListeningConfigs.MalformedException e) {
      throw HttpApiException.invalid("invalid probeModify: " + e.getMessage());
    }
  }

  static long holdMillis(String timeoutHeader) {
    long timeout;
    try {
      timeout = Long.parseLong(timeoutHeader.trim());
    } catch (NumberFormatException e) {
      throw HttpApiException.invalid(
          TIMEOUT_HEADER + " must be a number of milliseconds, was '" + timeoutHeader + "'");
    }
    return Math.min(MAX_HOLD_MILLIS, Math.max(MIN_HOLD_MILLIS, timeout - HOLD_MARGIN_MILLIS));
  }

  /** Nacos's version number: the dot-separated numbers as decimal digits ("2.0.4" is 204). */
  static int versionNumber(String version) {
    if (version == null) {
      return 200;
    }
    int number = 0;
    for (String part : version.split("\\.")) {
      try {
        number = number * 10 + Integer.parseInt(part.trim());
      } catch (NumberFormatException e) {
        // Nacos skips parts that are not numbers.
      }
    }
    return number;
  }
}
