package io.sluice.agent.bootstrap;

import java.util.function.Consumer;

/**
 * Releases the permit of an admitted reactive request (a Spring Cloud Gateway route) when its
 * {@code Mono} terminates: given to {@code doFinally}, it receives the signal type (complete,
 * error, cancel) and reads the response status through the hooks. Allocated only for requests a
 * rule governs.
 */
public final class ReactivePermit implements Consumer<Object> {
  private static final Throwable FAILED = new ReactiveFailure();

  private final Object resource;
  private final long permit;
  private final Object response;

  public ReactivePermit(Object resource, long permit, Object response) {
    this.resource = resource;
    this.permit = permit;
    this.response = response;
  }

  @Override
  public void accept(Object signal) {
    GovernanceHooks hooks = SluiceHooks.get();
    boolean failed = signal instanceof Enum && ((Enum<?>) signal).name().equals("ON_ERROR");
    hooks.release(resource, permit, hooks.statusOf(response), failed ? FAILED : null);
  }

  /** Stands for "the reactive pipeline ended in an error" when the release needs a throwable. */
  private static final class ReactiveFailure extends Exception {
    private static final long serialVersionUID = 1L;

    ReactiveFailure() {
      super("reactive request failed", null, false, false);
    }
  }
}
