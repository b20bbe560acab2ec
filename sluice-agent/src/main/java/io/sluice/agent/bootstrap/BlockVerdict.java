package io.sluice.agent.bootstrap;

import java.nio.charset.StandardCharsets;

/**
 * Why a call was refused and what the refused caller gets. Inbound, an answer: an HTTP status,
 * headers (among them {@code Retry-After}), a content type and a body. Outbound, either the
 * exception the client throws (the default) or, for a resource whose fallback says so, a synthetic
 * response made of the same parts. Immutable and built when the configuration or the fallback
 * document changes, never per refusal, so refusing allocates nothing of its own.
 */
public final class BlockVerdict {
  private static final String[] NO_HEADERS = new String[0];

  private final String reason;
  private final int status;
  private final String retryAfter;
  private final String[] headers;
  private final String contentType;
  private final byte[] body;
  private final boolean respondsOutbound;
  private final String reasonPhrase;

  /** The default answer: {@code {"status":429,"error":"flow","message":...}}. */
  public BlockVerdict(String reason, int status, String retryAfter) {
    this(
        reason,
        status,
        retryAfter,
        retryAfter == null ? NO_HEADERS : new String[] {"Retry-After", retryAfter},
        "application/json",
        ("{\"status\":"
                + status
                + ",\"error\":\""
                + reason
                + "\",\"message\":\"refused by Sluice ("
                + reason
                + ")\"}")
            .getBytes(StandardCharsets.UTF_8),
        false);
  }

  private BlockVerdict(
      String reason,
      int status,
      String retryAfter,
      String[] headers,
      String contentType,
      byte[] body,
      boolean respondsOutbound) {
    this.reason = reason;
    this.status = status;
    this.retryAfter = retryAfter;
    this.headers = headers;
    this.contentType = contentType;
    this.body = body;
    this.respondsOutbound = respondsOutbound;
    this.reasonPhrase = "refused by Sluice (" + reason + ")";
  }

  /**
   * A configured fallback: the answer a refused inbound call gets, and for an outbound call either
   * the same as a synthetic response ({@code respondsOutbound}) or the exception.
   *
   * @param headers name, value pairs (not Content-Type); copied
   */
  public static BlockVerdict fallback(
      String reason,
      int status,
      String[] headers,
      String contentType,
      byte[] body,
      boolean respondsOutbound) {
    String retryAfter = null;
    for (int i = 0; i + 1 < headers.length; i += 2) {
      if (headers[i].equalsIgnoreCase("Retry-After")) {
        retryAfter = headers[i + 1];
      }
    }
    return new BlockVerdict(
        reason, status, retryAfter, headers.clone(), contentType, body.clone(), respondsOutbound);
  }

  /** The reason phrase of a synthetic response: {@code refused by Sluice (flow)}. */
  public String reasonPhrase() {
    return reasonPhrase;
  }

  /** {@code flow} (a flow rule's limit), {@code degrade} (an open breaker), {@code system}... */
  public String reason() {
    return reason;
  }

  public int status() {
    return status;
  }

  /** Seconds for the {@code Retry-After} header, or null for none (also among {@link #headers}). */
  public String retryAfter() {
    return retryAfter;
  }

  /** Headers to set on the answer, as name, value pairs; callers must not modify it. */
  public String[] headers() {
    return headers;
  }

  /** The body; callers must not modify it. */
  public byte[] body() {
    return body;
  }

  /** The body's content type, or null when the answer has none. */
  public String contentType() {
    return contentType;
  }

  /**
   * Whether a refused outbound call returns a synthetic response made of this verdict (status,
   * headers, body) instead of throwing {@link #toException}; false by default.
   */
  public boolean respondsOutbound() {
    return respondsOutbound;
  }

  /** The exception an outbound client throws for this verdict. */
  public SluiceBlockedException toException(String target) {
    return new SluiceBlockedException(this, target);
  }

  @Override
  public String toString() {
    return reason + "->" + status + (respondsOutbound ? " (synthetic response)" : "");
  }
}
