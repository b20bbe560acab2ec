package io.sluice.server.replication;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * How the replicated states write a string into commands and snapshots: an int length and the UTF-8
 * bytes, -1 for null. Unlike {@code DataOutput.writeUTF} it has no 64 KiB limit; reading refuses a
 * length above the caller's bound, so a damaged length cannot allocate gigabytes.
 */
public final class LengthPrefixedString {
  private LengthPrefixedString() {}

  public static void write(DataOutput out, String s) throws IOException {
    if (s == null) {
      out.writeInt(-1);
      return;
    }
    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
    out.writeInt(utf8.length);
    out.write(utf8);
  }

  public static String read(DataInput in, int maxBytes) throws IOException {
    int length = in.readInt();
    if (length < 0) {
      return null;
    }
    if (length > maxBytes) {
      throw new IOException(
          "string of " + length + " bytes, above " + maxBytes + ": corrupt input");
    }
    byte[] utf8 = new byte[length];
    in.readFully(utf8);
    return new String(utf8, StandardCharsets.UTF_8);
  }
}
