package io.sluice.agent.bootstrap;

import java.nio.charset.StandardCharsets;

/**
 * Why a call was refused and what the refused caller gets: an HTTP status, an optional {@code
 * Retry-After} value and a small JSON body. One instance per kind of refusal, built from the
 * agent's configuration at start, so refusing allocates nothing.
 */
public final class BlockVerdict {
  private final String reason;
  private final int status;
  private final String retryAfter;
  private final byte[] body;

  public BlockVerdict(String reason, int status, String retryAfter) {
    this.reason = reason;
    this.status = status;
    this.retryAfter = retryAfter;
    this.body =
        ("{\"status\":"
                + status
                + ",\"error\":\""
                + reason
                + "\",\"message\":\"refused by Sluice ("
                + reason
                + ")\"}")
            .getBytes(StandardCharsets.UTF_8);
  }

  /** {@code flow} (a flow rule's limit), {@code degrade} (an open breaker), {@code system}... */
  public String reason() {
    return reason;
  }

  public int status() {
    return status;
  }

  /** Seconds for the {@code Retry-After} header, or null for none. */
  public String retryAfter() {
    return retryAfter;
  }

  /** The response body; callers must not modify it. */
  public byte[] body() {
    return body;
  }

  public String contentType() {
    return "application/json";
  }

  /** The exception an outbound client throws for this verdict. */
  public SluiceBlockedException toException(String target) {
    return new SluiceBlockedException(this, target);
  }

  @Override
  public String toString() {
    return reason + "->" + status;
  }
}
