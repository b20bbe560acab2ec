package io.sluice.agent.bootstrap;

import java.io.IOException;

/**
 * Thrown to the caller of an outbound HTTP client when a client-side rule refused the call before
 * it was sent. An {@link IOException}, because that is what every instrumented client already
 * declares and what callers already handle for "the call did not happen".
 */
public final class SluiceBlockedException extends IOException {
  private static final long serialVersionUID = 1L;

  private final transient BlockVerdict verdict;

  SluiceBlockedException(BlockVerdict verdict, String target) {
    super("Sluice refused the call to " + target + " (" + verdict.reason() + ")", null);
    this.verdict = verdict;
  }

  public BlockVerdict verdict() {
    return verdict;
  }

  // The stack trace of a refusal says nothing the message does not, and costs a walk per call.
  @Override
  public synchronized Throwable fillInStackTrace() {
    return this;
  }
}
