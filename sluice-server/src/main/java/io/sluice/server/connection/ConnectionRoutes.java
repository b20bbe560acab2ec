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
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Nacos's connection admin API on the HTTP port: list the gRPC clients connected here, and ask one
 * to reconnect (optionally to another server) with a {@code ConnectResetRequest} — the tool Nacos
 * operators use to rebalance clients across a cluster.
 *
 * <ul>
 *   <li>{@code GET /nacos/v2/core/loader/current}: connection id to client details.
 *   <li>{@code GET /nacos/v2/core/loader/reloadClient?connectionId=&redirectAddress=ip:port}:
 *       {@code success}, or 404 for an unknown connection, 400 for a malformed address.
 * </ul>
 */
public final class ConnectionRoutes implements HttpRoutes {
  static final String CURRENT_PATH = "/nacos/v2/core/loader/current";
  static final String RELOAD_PATH = "/nacos/v2/core/loader/reloadClient";

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
    String serverIp = "";
    String serverPort = "";
    String redirect = params.get("redirectAddress");
    if (redirect != null && !redirect.isBlank()) {
      int colon = redirect.lastIndexOf(':');
      if (colon <= 0 || colon == redirect.length() - 1) {
        throw HttpApiException.invalid("redirectAddress must be ip:port");
      }
      serverIp = redirect.substring(0, colon);
      serverPort = redirect.substring(colon + 1);
      try {
        int port = Integer.parseInt(serverPort);
        if (port < 1 || port > 65535) {
          throw new NumberFormatException();
        }
      } catch (NumberFormatException e) {
        throw HttpApiException.invalid("redirectAddress must be ip:port");
      }
    }
    Connection connection = connections.get(connectionId);
    if (connection == null) {
      throw new HttpApiException(
          404, NacosErrorCode.RESOURCE_NOT_FOUND, "connection " + connectionId + " not found");
    }
    connection.reset(serverIp, serverPort);
    HttpResponses.text(request.response(), 200, "success");
  }
}
