package io.sluice.server.protocol.grpc;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * Base of every response: {@code resultCode} 200 is success, 500 failure with the reason in {@code
 * errorCode} and {@code message}. The official client looks only at {@code resultCode} (through
 * {@code isSuccess()}) and the error code.
 */
public abstract class NacosResponse {
  public static final int SUCCESS = 200;
  public static final int FAIL = 500;

  public int resultCode = SUCCESS;
  public int errorCode;
  public String message;
  public String requestId;

  @JsonProperty("success")
  boolean success() {
    return resultCode == SUCCESS;
  }

  /** {@code "resultCode":200,"errorCode":0,"success":true}: how every successful response ends. */
  protected static final byte[] SUCCESS_FIELDS =
      "\"resultCode\":200,\"errorCode\":0,\"success\":true}".getBytes(StandardCharsets.US_ASCII);

  /**
   * For the hot responses whose JSON is mostly constant or cached elsewhere (a service's instance
   * list, a registration's acknowledgement): the length of what {@link #writeAfterRequestId} writes,
   * or -1 to have the codec encode this response with Jackson. Returning a length is a promise that
   * the bytes written are exactly the JSON Jackson would have produced after {@code
   * {"requestId":"…",}, field order aside, ending with the closing brace.
   */
  protected int encodedLengthAfterRequestId() {
    return -1;
  }

  /**
   * Writes the JSON after {@code {"requestId":"…",} into {@code into} at its writer index; called
   * only after {@link #encodedLengthAfterRequestId} returned a length, with room for exactly that
   * many bytes. {@code into} is the answer's own array (grpc-java) or the pooled buffer of its gRPC
   * message (netty-h2): cached bytes are copied once, straight to where they are sent from.
   */
  protected void writeAfterRequestId(ByteBuf into) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " is not pre-encoded");
  }

  /**
   * For a pre-encoded response whose JSON ends with a large cached piece: that piece, which the
   * netty-h2 transport sends from the cache's own memory beside a small head instead of copying it;
   * or null (the default) to have {@link #writeAfterRequestId} copy everything. Called only after
   * {@link #encodedLengthAfterRequestId} returned a length. The buffer's readable bytes are the
   * last ones {@link #writeAfterRequestId} writes; it must be direct, unreleasable and never
   * written to, its memory alive as long as anything refers to it (see {@code ServiceInfoJson}).
   */
  protected ByteBuf sharedTail() {
    return null;
  }

  /**
   * With {@link #sharedTail} non-null: writes into {@code head} what {@link #writeAfterRequestId}
   * writes before that piece, exactly.
   */
  protected void writeBeforeSharedTail(ByteBuf head) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " shares no tail");
  }

  /** Marks this response failed with a Nacos error code; returns it for chaining. */
  @SuppressWarnings("unchecked")
  public <T extends NacosResponse> T fail(int errorCode, String message) {
    this.resultCode = FAIL;
    this.errorCode = errorCode;
    this.message = message;
    return (T) this;
  }
}
