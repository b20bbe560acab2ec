package io.sluice.server.protocol.grpc;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;

/**
 * Reads a gRPC message sent with {@code grpc-encoding: gzip} (the compressed flag set) for the
 * {@link GrpcTransport#NETTY_H2} transport. What it inflates to is bounded: past {@code maxBytes}
 * it stops at once, keeps nothing and throws {@link InflatedTooLargeException}, so a small
 * "decompression bomb" costs at most {@code maxBytes} of inflating and a buffer growing (by
 * doubling) to that size, about what an uncompressed message at the limit costs. Allocates per
 * message; only compressed messages come here.
 */
final class GzipMessageDecoder {
  /** The one compressed encoding served, as {@code grpc-encoding} and the answer's accept list. */
  static final String GZIP = "gzip";

  private static final int CHUNK_BYTES = 8 * 1024;

  private GzipMessageDecoder() {}

  /** The message {@code compressed} inflates to, at most {@code maxBytes} long. */
  static byte[] inflate(byte[] compressed, int maxBytes) throws IOException {
    byte[] out = new byte[Math.min(maxBytes, Math.max(CHUNK_BYTES, compressed.length * 4))];
    int length = 0;
    try (GZIPInputStream in =
        new GZIPInputStream(new ByteArrayInputStream(compressed), CHUNK_BYTES)) {
      while (true) {
        if (length == out.length) {
          if (length == maxBytes) {
            if (in.read() < 0) {
              break; // exactly at the limit
            }
            throw new InflatedTooLargeException(maxBytes);
          }
          out = Arrays.copyOf(out, (int) Math.min(maxBytes, 2L * length));
        }
        int n = in.read(out, length, out.length - length);
        if (n < 0) {
          break;
        }
        length += n;
      }
    }
    return length == out.length ? out : Arrays.copyOf(out, length);
  }

  /** The message inflates to more than the limit; nothing of it was kept. */
  static final class InflatedTooLargeException extends IOException {
    InflatedTooLargeException(int maxBytes) {
      super("decompressed gRPC message exceeds maximum size " + maxBytes);
    }
  }
}
