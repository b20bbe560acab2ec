package io.sluice.server.protocol.grpc;

import java.nio.charset.StandardCharsets;

/**
 * The {@code grpc-message} trailer's encoding (gRPC over HTTP/2): the status description's UTF-8
 * bytes, each byte outside printable ASCII (0x20–0x7E) and each {@code %} written as {@code %XX}.
 * grpc-java's clients decode it back; an unencoded non-ASCII description would be refused by the
 * HTTP/2 header validation or garbled.
 */
final class GrpcStatusMessages {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private GrpcStatusMessages() {}

  static String percentEncode(String description) {
    int i = 0;
    while (i < description.length()) {
      char c = description.charAt(i);
      if (c < 0x20 || c > 0x7E || c == '%') {
        break;
      }
      i++;
    }
    if (i == description.length()) {
      return description; // the common case: nothing to escape
    }
    byte[] bytes = description.getBytes(StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder(bytes.length + 16);
    for (byte b : bytes) {
      int u = b & 0xff;
      if (u < 0x20 || u > 0x7E || u == '%') {
        out.append('%').append(HEX[u >>> 4]).append(HEX[u & 0xf]);
      } else {
        out.append((char) u);
      }
    }
    return out.toString();
  }
}
