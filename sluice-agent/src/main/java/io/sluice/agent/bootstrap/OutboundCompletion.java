package io.sluice.agent.bootstrap;

import java.util.function.BiConsumer;

/**
 * Releases the permit of an asynchronous outbound call when its future completes. Allocated only
 * for calls a rule governs. It cannot read the response status (the response type lives in a module
 * the bootstrap loader cannot see), so for asynchronous calls only exceptions count as errors.
 */
public final class OutboundCompletion implements BiConsumer<Object, Throwable> {
  private final Object resource;
  private final long permit;

  public OutboundCompletion(Object resource, long permit) {
    this.resource = resource;
    this.permit = permit;
  }

  @Override
  public void accept(Object response, Throwable error) {
    SluiceHooks.get().release(resource, permit, 0, error);
  }
}
