package io.sluice.server.protocol.grpc;

import com.fasterxml.jackson.annotation.JsonProperty;

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

  /** Marks this response failed with a Nacos error code; returns it for chaining. */
  @SuppressWarnings("unchecked")
  public <T extends NacosResponse> T fail(int errorCode, String message) {
    this.resultCode = FAIL;
    this.errorCode = errorCode;
    this.message = message;
    return (T) this;
  }
}
