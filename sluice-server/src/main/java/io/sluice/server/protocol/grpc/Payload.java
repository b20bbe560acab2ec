package io.sluice.server.protocol.grpc;

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

  public static Payload of(String type, byte[] body) {
    return new Payload(type, "", Map.of(), body);
  }
}
