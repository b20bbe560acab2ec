package io.sluice.server.connection;

import io.sluice.server.protocol.grpc.Connection;
import io.sluice.server.protocol.grpc.ConnectionRegistry;
import io.sluice.server.protocol.http.ApiStyle;
import io.sluice.server.protocol.http.HttpApiException;
import io.sluice.server.protocol.http.HttpParams;
import io.sluice.server.protocol.http.HttpResponses;
import io.sluice.server.protocol.http.HttpRoutes;
import io.sluice.server.protocol.http.NacosErrorCode;
import io.sluice.server.protocol.http.RequestParams;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Nacos's connection admin API on the HTTP port: list the gRPC clients connected here, and ask one
 * to reconnect (optionally to another server) with a {@code ConnectResetRequest} — the tool Nacos
 * operators use to rebalance clients across a cluster.
 *
 * <ul>
 *   <li>{@code GET /nacos/v2/core/loader/current}: connection id to client details.
 *   <li>{@code GET /nacos/v2/core/loader/reloadClient?connectionId=&redirectAddress=ip:port}:
 *       {@code success} once the reset is sent; 404 for an unknown connection, 409 for one that is
 *       closed but not yet forgotten (nothing sent), 400 for a malformed address.
 *   <li>{@code GET /nacos/v2/core/loader/reloadCurrent?count=N&redirectAddress=ip:port}: asks N of
 *       this node's open clients (the newest connections) to reconnect, to the given node if any;
 *       answers {@code success}. The cluster's {@code smartReloadCluster} calls it on each
 *       overloaded node.
 * </ul>
 */
public final class ConnectionRoutes implements HttpRoutes {
  static final String CURRENT_PATH = "/nacos/v2/core/loader/current";
  static final String RELOAD_PATH = "/nacos/v2/core/loader/reloadClient";
  static final String RELOAD_CURRENT_PATH = "/nacos/v2/core/loader/reloadCurrent";

  private final ConnectionRegistry connections;

  public ConnectionRoutes(ConnectionRegistry connections) {
    this.connections = connections;
  }

  /** One client as Nacos's loader API lists it. */
  record ClientJson(
      String clientIp,
      String remoteIp,
      int remotePort,
      String version,
      String module,
      String appName,
      String namespace,
      long createTime) {}

  @Override
  public void mount(Router router) {
    router
        .route(HttpMethod.GET, CURRENT_PATH)
        .handler(RequestParams.handler(0, ApiStyle.V1, this::current));
    router
        .route(HttpMethod.GET, RELOAD_PATH)
        .handler(RequestParams.handler(0, ApiStyle.V1, this::reload));
    router
        .route(HttpMethod.GET, RELOAD_CURRENT_PATH)
        .handler(RequestParams.handler(0, ApiStyle.V1, this::reloadCurrent));
  }

  private void reloadCurrent(HttpServerRequest request, HttpParams params) {
    String countParam = params.required("count");
    int count;
    try {
      count = Integer.parseInt(countParam.strip());
    } catch (NumberFormatException e) {
      throw HttpApiException.invalid("count must be a number");
    }
    if (count < 0) {
      throw HttpApiException.invalid("count must not be negative");
    }
    String[] redirect = redirectOf(params);
    List<Connection> newestFirst = new ArrayList<>();
    for (Connection connection : connections.all()) {
      // One already asked to leave is not asked again, nor one that is closed (it is leaving).
      if (!connection.resetRequested() && !connection.isClosed()) {
        newestFirst.add(connection);
      }
    }
    newestFirst.sort(Comparator.comparingLong(Connection::connectedAtMillis).reversed());
    for (Connection connection : newestFirst.subList(0, Math.min(count, newestFirst.size()))) {
      connection.reset(redirect[0], redirect[1]);
    }
    HttpResponses.text(request.response(), 200, "success");
  }

  /** {@code redirectAddress} as {ip, port}, both "" when absent; 400 when malformed. */
  private static String[] redirectOf(HttpParams params) {
    String redirect = params.get("redirectAddress");
    if (redirect == null || redirect.isBlank()) {
      return new String[] {"", ""};
    }
    int colon = redirect.lastIndexOf(':');
    if (colon <= 0 || colon == redirect.length() - 1) {
      throw HttpApiException.invalid("redirectAddress must be ip:port");
    }
    String port = redirect.substring(colon + 1);
    try {
      int number = Integer.parseInt(port);
      if (number < 1 || number > 65535) {
        throw new NumberFormatException();
      }
    } catch (NumberFormatException e) {
      throw HttpApiException.invalid("redirectAddress must be ip:port");
    }
    return new String[] {redirect.substring(0, colon), port};
  }

  private void current(HttpServerRequest request, HttpParams params) {
    Map<String, ClientJson> all = new LinkedHashMap<>();
    for (Connection connection : connections.all()) {
      all.put(
          connection.id(),
          new ClientJson(
              connection.client().clientIp(),
              connection.remoteIp(),
              connection.remotePort(),
              connection.client().clientVersion(),
              connection.client().module(),
              connection.client().appName(),
              connection.client().namespace(),
              connection.connectedAtMillis()));
    }
    HttpResponses.ok(request.response(), all);
  }

  private void reload(HttpServerRequest request, HttpParams params) {
    String connectionId = params.required("connectionId");
    if (connectionId.isBlank()) {
      throw HttpApiException.missingParameter("connectionId");
    }
    String[] redirect = redirectOf(params);
    Connection connection = connections.get(connectionId);
    if (connection == null) {
      throw new HttpApiException(
          404, NacosErrorCode.RESOURCE_NOT_FOUND, "connection " + connectionId + " not found");
    }
    if (!connection.reset(redirect[0], redirect[1])) {
      // Closed but not yet forgotten by the registry: no reset went out.
      throw new HttpApiException(
          409,
          NacosErrorCode.RESOURCE_CONFLICT,
          "connection " + connectionId + " is closed: no reset was sent (its client reconnects)");
    }
    HttpResponses.text(request.response(), 200, "success");
  }
}
