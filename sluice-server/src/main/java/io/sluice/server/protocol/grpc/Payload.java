package io.sluice.server.protocol.grpc;

import io.grpc.Status;
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

  /** The type of a message above the size limit (grpc-java inflated it past the bound). */
  private static final String TOO_LARGE = "\u0000tooLarge";

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

  /**
   * Stands for a message that is larger than the server takes once inflated, with the reason: the
   * call is refused RESOURCE_EXHAUSTED, as one sent uncompressed at that size is.
   */
  static Payload tooLarge(String reason) {
    return new Payload(TOO_LARGE, "", Map.of(), reason.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Whether this stands for a message that was not read: bytes that are no Payload ({@link
   * #malformed}) or one too large once inflated ({@link #tooLarge}).
   */
  boolean isUnread() {
    return MALFORMED.equals(type) || TOO_LARGE.equals(type);
  }

  /** The status a call is refused with for a message that was not read. */
  Status.Code unreadStatus() {
    return TOO_LARGE.equals(type) ? Status.Code.RESOURCE_EXHAUSTED : Status.Code.INVALID_ARGUMENT;
  }

  /** Why a message was not read, as the refusal says it. */
  String unreadReason() {
    return new String(body, StandardCharsets.UTF_8);
  }
}
