package io.sluice.agent.bootstrap;

import java.util.function.Consumer;

/**
 * Releases the permit of an admitted reactive call when its {@code Mono} terminates. Given to
 * {@code doFinally}, it receives the signal type (complete, error, cancel) and releases with the
 * status of the server response it was made with (a Spring Cloud Gateway route, a WebFlux route),
 * read through the hooks. For a client call (WebClient), it is given to {@code doOnSuccess} as
 * well, where it notes the status of the response the call emitted. Allocated only for calls a rule
 * governs; releases exactly once.
 */
public final class ReactivePermit implements Consumer<Object> {
  private static final Throwable FAILED = new ReactiveFailure();

  private final Object resource;
  private final long permit;
  private final Object response;
  private volatile int status;

  /**
   * @param response the server response whose status the release reports, or null for a client
   *     call, whose status comes from the emitted response
   */
  public ReactivePermit(Object resource, long permit, Object response) {
    this.resource = resource;
    this.permit = permit;
    this.response = response;
  }

  @Override
  public void accept(Object signal) {
    GovernanceHooks hooks = SluiceHooks.get();
    if (!(signal instanceof Enum)) {
      // doOnSuccess: the client call's response (or null for an empty result).
      if (signal != null) {
        status = hooks.statusOf(signal);
      }
      return;
    }
    boolean failed = ((Enum<?>) signal).name().equals("ON_ERROR");
    int finalStatus = response != null ? hooks.statusOf(response) : status;
    hooks.release(resource, permit, finalStatus, failed ? FAILED : null);
  }

  /** Stands for "the reactive pipeline ended in an error" when the release needs a throwable. */
  private static final class ReactiveFailure extends Exception {
    private static final long serialVersionUID = 1L;

    ReactiveFailure() {
      super("reactive request failed", null, false, false);
    }
  }
}
