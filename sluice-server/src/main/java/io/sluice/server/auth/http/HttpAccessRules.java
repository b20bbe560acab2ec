package io.sluice.server.auth.http;

import io.sluice.server.auth.Action;
import io.sluice.server.auth.AuthService;
import io.sluice.server.auth.Identity;
import io.sluice.server.protocol.http.HttpAccess;
import io.sluice.server.protocol.http.HttpParams;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;

/**
 * Who may call what over HTTP when auth is on, decided from the path, the method and the
 * parameters, before any handler runs. The token is read from the {@code accessToken} parameter
 * (query or form) or header, or {@code Authorization: Bearer}; nothing else vouches for a caller
 * (Nacos's {@code User-Agent: Nacos-Server} bypass, CVE-2021-29441, has no meaning here).
 *
 * <ul>
 *   <li>open: login, the cluster's server list (and the probes, which are not checked at all);
 *   <li>configs, history and the long-poll listener: read ({@code GET}, listening) or write the
 *       config {@code namespace:group:config/dataId} ({@code tenant} or {@code namespaceId});
 *   <li>naming: read ({@code GET}) or write the service {@code namespace:group:naming/service}; the
 *       metrics and namespace lists: any logged-in user;
 *   <li>an agent's traffic report ({@code POST /nacos/v1/sluice/traffic}): any logged-in user, so
 *       an agent reports with the credentials it reads its rules with (a report feeds the console's
 *       charts and nothing else);
 *   <li>a user changing its own password: that user;
 *   <li>everything else (users, roles, permissions, namespace changes, the connection loader, paths
 *       that do not exist): the admin. Failing closed, a new endpoint is the admin's until a rule
 *       here opens it.
 * </ul>
 */
public final class HttpAccessRules implements HttpAccess {
  /**
   * The address-server list of a cluster's members: a client reads it to find the servers it then
   * logs in to, so it cannot need a login itself (Nacos's address server has none either).
   */
  private static final String SERVER_LIST = "/nacos/serverlist";

  /** Where agents post their traffic reports (sluice-agent's {@code TrafficSender}). */
  private static final String TRAFFIC_REPORTS = "/nacos/v1/sluice/traffic";

  private final AuthService auth;

  public HttpAccessRules(AuthService auth) {
    this.auth = auth;
  }

  @Override
  public void check(HttpServerRequest request, HttpParams params) {
    String path = request.path();
    HttpMethod method = request.method();
    if (path.equals(AuthRoutes.LOGIN)
        || path.equals(AuthRoutes.LEGACY_LOGIN)
        || path.equals(SERVER_LIST)) {
      return;
    }
    Identity who = auth.identify(token(request, params));
    boolean read = method == HttpMethod.GET;
    if (path.equals("/nacos/v1/cs/configs/listener") && method == HttpMethod.POST) {
      checkListening(who, params.get("Listening-Configs"));
    } else if (path.startsWith("/nacos/v1/cs/configs")
        || path.startsWith("/nacos/v2/cs/config")
        || path.startsWith("/nacos/v1/cs/history")
        || path.startsWith("/nacos/v2/cs/history")) {
      auth.authorize(
          who,
          params.firstOf("namespaceId", "tenant"),
          params.get("group"),
          "config",
          params.get("dataId"),
          read ? Action.READ : Action.WRITE);
    } else if (path.equals("/nacos/v1/ns/operator/metrics")) {
      return;
    } else if (path.equals(TRAFFIC_REPORTS) && method == HttpMethod.POST) {
      return; // any logged-in user: identify() above has checked the token
    } else if (path.startsWith("/nacos/v1/ns/") || path.startsWith("/nacos/v2/ns/")) {
      String service = params.get("serviceName");
      String group = params.get("groupName");
      if (service != null && service.contains("@@")) {
        group = service.substring(0, service.indexOf("@@"));
        service = service.substring(service.indexOf("@@") + 2);
      }
      auth.authorize(
          who,
          params.get("namespaceId"),
          group,
          "naming",
          service,
          read ? Action.READ : Action.WRITE);
    } else if (read
        && (path.equals("/nacos/v1/console/namespaces")
            || path.startsWith("/nacos/v2/console/namespace"))) {
      return;
    } else if (path.equals(AuthRoutes.USERS)
        && method == HttpMethod.PUT
        && who.username().equals(params.get("username"))) {
      return;
    } else {
      auth.requireAdmin(who);
    }
  }

  /** Listening reads each config listed: {@code dataId^2group^2md5[^2tenant]^1...}. */
  private void checkListening(Identity who, String listening) {
    if (listening == null) {
      return;
    }
    for (String line : listening.split("\u0001")) {
      if (line.isEmpty()) {
        continue;
      }
      String[] words = line.split("\u0002", -1);
      String tenant = words.length > 3 ? words[3] : "";
      auth.authorize(
          who, tenant, words.length > 1 ? words[1] : "", "config", words[0], Action.READ);
    }
  }

  private static String token(HttpServerRequest request, HttpParams params) {
    String token = params.get("accessToken");
    if (token == null || token.isEmpty()) {
      token = request.getHeader("accessToken");
    }
    if (token == null || token.isEmpty()) {
      String authorization = request.getHeader("Authorization");
      if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
        token = authorization.substring(7);
      }
    }
    return token;
  }
}
