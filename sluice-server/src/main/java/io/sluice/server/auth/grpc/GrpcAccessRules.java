package io.sluice.server.auth.grpc;

import io.sluice.server.auth.Action;
import io.sluice.server.auth.AuthService;
import io.sluice.server.auth.Identity;
import io.sluice.server.protocol.grpc.GrpcAccess;
import io.sluice.server.protocol.grpc.NacosRequest;
import io.sluice.server.protocol.grpc.RequestResource;

/**
 * Who may send what over gRPC when auth is on: the {@code accessToken} request header (where the
 * official client puts it) must name a user allowed to read or write every resource the request
 * touches; a request touching none needs a valid login only. The connection's own handshake (server
 * check, setup, health checks) is not checked, as in Nacos.
 */
public final class GrpcAccessRules implements GrpcAccess {
  private final AuthService auth;

  public GrpcAccessRules(AuthService auth) {
    this.auth = auth;
  }

  @Override
  public void check(NacosRequest request) {
    Identity who = auth.identify(request.header("accessToken"));
    for (RequestResource resource : request.resources()) {
      auth.authorize(
          who,
          resource.namespace(),
          resource.group(),
          resource.type(),
          resource.name(),
          resource.write() ? Action.WRITE : Action.READ);
    }
  }
}
