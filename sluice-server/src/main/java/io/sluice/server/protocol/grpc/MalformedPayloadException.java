package io.sluice.server.protocol.grpc;

/** A gRPC message that is not a well-formed Nacos {@code Payload}. */
public final class MalformedPayloadException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public MalformedPayloadException(String message) {
    super(message);
  }
}
