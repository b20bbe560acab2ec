package io.sluice.agent.governance;

import io.sluice.flow.Resource;

/**
 * The handle advice holds for one resource on one path: the sluice-flow resource, its name and
 * where it is governed. Created once per route (or client target) and path, then only read.
 *
 * <p>{@code argumentCount} and {@code entranceOnly} are written racily and idempotently: the first
 * when the resource's handler method is first invoked with its arguments, the second when a CHAIN
 * rule first needs it.
 */
final class GovernedResource {
  final Resource flow;
  final String name;
  final CallPath path;
  volatile int argumentCount = -1;
  // The context of a call to this route that arrived with none, while CHAIN rules need one.
  volatile io.sluice.agent.bootstrap.SluiceContext entranceOnly;

  GovernedResource(Resource flow, CallPath path) {
    this.flow = flow;
    this.name = flow.name();
    this.path = path;
  }

  @Override
  public String toString() {
    return name + " (" + path.description + ")";
  }
}
