package io.sluice.agent.governance;

/**
 * The handle an RPC advice holds for one method on one path: the method's resource and its
 * service's (interface's), found together by one lookup and governed in that order, as Sentinel's
 * Dubbo adapter enters them. Immutable; created once per path, interface and method overload.
 *
 * <p>{@code service} is null when the path's resource table was full when the interface was first
 * seen: the method is then governed alone.
 */
final class RpcCall {
  final GovernedResource service;
  final GovernedResource method;

  RpcCall(GovernedResource service, GovernedResource method) {
    this.service = service;
    this.method = method;
  }

  @Override
  public String toString() {
    return method.toString();
  }
}
