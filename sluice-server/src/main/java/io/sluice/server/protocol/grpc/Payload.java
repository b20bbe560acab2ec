package io.sluice.server.protocol.grpc;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;

/**
 * One message of Nacos's gRPC protocol: the simple class name of the request or response, the
 * sender's IP as it reports it, request headers, and the UTF-8 JSON body. It is what travels in the
 * protobuf {@code Payload{Metadata metadata = 2; Any body = 3}}.
 *
 * <p>{@code clientIp} is informational only: a connection is identified by its transport, never by
 * what the client says about itself.
 */
public record Payload(String type, String clientIp, Map<String, String> headers, byte[] body) {
  public Payload {
    Objects.requireNonNull(type, "type");
    clientIp = clientIp == null ? "" : clientIp;
    headers = headers == null ? Map.of() : headers;
    body = body == null ? new byte[0] : body;
  }

  /** The type of a message that could not be read: no class is named so. */
  private static final String MALFORMED = "\u0000malformed";

  public static Payload of(String type, byte[] body) {
    return new Payload(type, "", Map.of(), body);
  }

  /**
   * Stands for bytes that are not a Payload, with the reason, so the call handler can refuse the
   * call with it (gRPC would answer a marshaller's exception with a bare UNKNOWN).
   */
  static Payload malformed(String reason) {
    return new Payload(MALFORMED, "", Map.of(), reason.getBytes(StandardCharsets.UTF_8));
  }

  boolean isMalformed() {
    return MALFORMED.equals(type);
  }

  String malformedReason() {
    return new String(body, StandardCharsets.UTF_8);
  }
}
