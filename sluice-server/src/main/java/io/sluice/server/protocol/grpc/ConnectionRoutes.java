package io.sluice.server.protocol.grpc;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.server.protocol.http.HttpRoutes;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

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
  private final ConnectionRegistry connections;
  private final MessageCodec codec;

  public ConnectionRoutes(ConnectionRegistry connections, MessageCodec codec) {
    this.connections = connections;
    this.codec = codec;
  }

  @Override
  public void mount(Router router) {
    router.route(HttpMethod.GET, "/nacos/v2/core/loader/current").handler(this::current);
    router.route(HttpMethod.GET, "/nacos/v2/core/loader/reloadClient").handler(this::reload);
  }

  private void current(RoutingContext ctx) {
    ObjectNode all = codec.mapper().createObjectNode();
    for (Connection connection : connections.all()) {
      ObjectNode client = all.putObject(connection.id());
      client.put("clientIp", connection.client().clientIp());
      client.put("remoteIp", connection.remoteIp());
      client.put("remotePort", connection.remotePort());
      client.put("version", connection.client().clientVersion());
      client.put("module", connection.client().module());
      client.put("appName", connection.client().appName());
      client.put("namespace", connection.client().namespace());
      client.put("createTime", connection.connectedAtMillis());
    }
    ctx.response().putHeader("Content-Type", "application/json;charset=UTF-8").end(all.toString());
  }

  private void reload(RoutingContext ctx) {
    String connectionId = ctx.request().getParam("connectionId");
    if (connectionId == null || connectionId.isBlank()) {
      text(ctx, 400, "Required request parameter 'connectionId' is not present");
      return;
    }
    String serverIp = "";
    String serverPort = "";
    String redirect = ctx.request().getParam("redirectAddress");
    if (redirect != null && !redirect.isBlank()) {
      int colon = redirect.lastIndexOf(':');
      if (colon <= 0 || colon == redirect.length() - 1) {
        text(ctx, 400, "redirectAddress must be ip:port");
        return;
      }
      serverIp = redirect.substring(0, colon);
      serverPort = redirect.substring(colon + 1);
      try {
        int port = Integer.parseInt(serverPort);
        if (port < 1 || port > 65535) {
          throw new NumberFormatException();
        }
      } catch (NumberFormatException e) {
        text(ctx, 400, "redirectAddress must be ip:port");
        return;
      }
    }
    Connection connection = connections.get(connectionId);
    if (connection == null) {
      text(ctx, 404, "connection " + connectionId + " not found");
      return;
    }
    connection.reset(serverIp, serverPort);
    text(ctx, 200, "success");
  }

  private static void text(RoutingContext ctx, int status, String body) {
    ctx.response()
        .setStatusCode(status)
        .putHeader("Content-Type", "text/plain;charset=UTF-8")
        .end(body);
  }
}
