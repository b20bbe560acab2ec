package io.sluice.server.feature;

import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * The one failure type of a feature's door: what went wrong as a {@link Fault}, and a message for
 * the client. Each feature has its own subclass so that its signatures say whose failure it is;
 * protocols translate any of them by the fault alone.
 *
 * <p>It carries no stack trace of its own: a refused request is the client's business and costs no
 * more than a message; the cause, when the server failed, keeps its trace.
 */
public abstract class FeatureException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final Fault fault;

  protected FeatureException(Fault fault, String message, Throwable cause) {
    super(message, cause, false, false);
    this.fault = Objects.requireNonNull(fault, "fault");
  }

  public Fault fault() {
    return fault;
  }

  /**
   * What a future failed with, unwrapped from {@link CompletionException} and {@link
   * ExecutionException}: the feature's exception, or whatever else went wrong.
   */
  public static Throwable unwrap(Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  /** Makes a feature's own exception for a fault; {@code ConfigException::new} is one. */
  @FunctionalInterface
  public interface Factory {
    FeatureException create(Fault fault, String message, Throwable cause);
  }
}
