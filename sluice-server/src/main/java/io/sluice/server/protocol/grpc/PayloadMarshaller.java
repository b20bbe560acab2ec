package io.sluice.server.protocol.grpc;

import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;

/**
 * Plugs {@link PayloadCodec} into grpc-java. gRPC has already bounded the message size (the
 * server's maximum inbound message size) before {@link #parse} sees the stream; for a compressed
 * message it bounds what it inflates while {@link #parse} reads, and says so with
 * RESOURCE_EXHAUSTED, which the call is then refused with.
 */
public final class PayloadMarshaller implements MethodDescriptor.Marshaller<Payload> {
  public static final PayloadMarshaller INSTANCE = new PayloadMarshaller();

  private PayloadMarshaller() {}

  @Override
  public InputStream stream(Payload value) {
    return new PayloadStream(value);
  }

  @Override
  public Payload parse(InputStream stream) {
    try {
      byte[] bytes;
      if (stream instanceof KnownLength) {
        bytes = new byte[stream.available()];
        int read = 0;
        while (read < bytes.length) {
          int n = stream.read(bytes, read, bytes.length - read);
          if (n < 0) {
            throw new MalformedPayloadException("stream ended early");
          }
          read += n;
        }
      } else {
        bytes = stream.readAllBytes();
      }
      return parse(bytes);
    } catch (StatusRuntimeException e) {
      // grpc-java's own bound on a gzip message, met while it inflates the stream read here.
      return e.getStatus().getCode() == Status.Code.RESOURCE_EXHAUSTED
          ? Payload.tooLarge(
              Objects.requireNonNullElse(
                  e.getStatus().getDescription(), "gRPC message exceeds maximum size"))
          : Payload.malformed("malformed Payload: " + e.getMessage());
    } catch (IOException | RuntimeException e) {
      // Thrown, gRPC would answer a bare UNKNOWN: the call handler refuses it with the reason.
      return Payload.malformed("malformed Payload: " + e.getMessage());
    }
  }

  /** A message's bytes as a payload, or a malformed one with the reason; never throws. */
  static Payload parse(byte[] bytes) {
    try {
      return PayloadCodec.decode(bytes);
    } catch (RuntimeException e) {
      return Payload.malformed("malformed Payload: " + e.getMessage());
    }
  }
}
