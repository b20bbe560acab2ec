package io.sluice.server.protocol.http;

import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;

/**
 * The client's IP as Nacos reads it ({@code RequestUtil.getRemoteIp}): the first address of {@code
 * X-Forwarded-For}, else {@code X-Real-IP}, else the socket's peer. The headers are whatever the
 * client or a proxy says; use {@link #ofSocket} where only the network's word counts.
 */
public final class ClientIp {
  private ClientIp() {}

  public static String of(HttpServerRequest request) {
    String forwarded = request.getHeader("X-Forwarded-For");
    if (forwarded != null && !forwarded.isBlank()) {
      int comma = forwarded.indexOf(',');
      return (comma < 0 ? forwarded : forwarded.substring(0, comma)).trim();
    }
    String real = request.getHeader("X-Real-IP");
    if (real != null && !real.isBlank()) {
      return real.trim();
    }
    return ofSocket(request);
  }

  public static String ofSocket(HttpServerRequest request) {
    SocketAddress remote = request.remoteAddress();
    if (remote == null) {
      return "";
    }
    String host = remote.hostAddress();
    return host == null ? "" : host;
  }
}
