package io.sluice.server.protocol.grpc;

import io.grpc.Drainable;
import io.grpc.KnownLength;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * An outbound {@link Payload} as grpc-java reads it: the protobuf bytes are the payload's head
 * ({@link PayloadCodec#head}) followed by its body. grpc-java drains a {@link Drainable} stream
 * into its own buffer, so the body (a service's instance list, a pushed config) is copied once,
 * from the payload straight to the transport, instead of into an encoding array and again through a
 * copy buffer.
 *
 * <p>Not thread-safe, like any {@code InputStream}: grpc-java uses it from one thread. Reading it
 * byte by byte instead of draining works too (it materialises the full encoding once); after a
 * drain the stream is empty.
 */
final class PayloadStream extends InputStream implements Drainable, KnownLength {
  private final Payload payload;
  private byte[] head;
  private ByteArrayInputStream read;
  private boolean drained;

  PayloadStream(Payload payload) {
    this.payload = payload;
  }

  @Override
  public int drainTo(OutputStream target) throws IOException {
    if (read != null) {
      int rest = read.available();
      read.transferTo(target);
      return rest;
    }
    if (drained) {
      return 0;
    }
    drained = true;
    byte[] h = head();
    target.write(h);
    target.write(payload.body());
    return h.length + payload.body().length;
  }

  @Override
  public int available() {
    if (read != null) {
      return read.available();
    }
    return drained ? 0 : head().length + payload.body().length;
  }

  @Override
  public int read() {
    return reader().read();
  }

  @Override
  public int read(byte[] into, int offset, int length) {
    return reader().read(into, offset, length);
  }

  private byte[] head() {
    if (head == null) {
      head = PayloadCodec.head(payload);
    }
    return head;
  }

  private ByteArrayInputStream reader() {
    if (read == null) {
      read = new ByteArrayInputStream(drained ? new byte[0] : PayloadCodec.encode(payload));
      drained = true;
    }
    return read;
  }
}
