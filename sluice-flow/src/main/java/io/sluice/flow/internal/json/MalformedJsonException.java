package io.sluice.flow.internal.json;

/** The text is not JSON, or it is JSON beyond the reader's bounds; the message says where. */
public final class MalformedJsonException extends Exception {

  private static final long serialVersionUID = 1L;

  MalformedJsonException(String message) {
    super(message);
  }
}
