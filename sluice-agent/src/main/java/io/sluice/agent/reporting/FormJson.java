package io.sluice.agent.reporting;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * JSON written straight into reused bytes as the value of a form field ({@code
 * application/x-www-form-urlencoded}): the structure goes as it is (none of {@code {}[]":,} needs
 * escaping in a form value), and a string is JSON-escaped, then form-escaped where the form format
 * needs it ({@code % & + =}, space, non-ASCII). So a report costs no {@code String} per number or
 * name, the server decodes the field mostly by copying, and the buffer, grown once, is written
 * again and again.
 *
 * <p>Not thread-safe: each buffer belongs to the reporting thread.
 */
final class FormJson {
  private static final byte[] HEX = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] MIN_LONG =
      String.valueOf(Long.MIN_VALUE).getBytes(StandardCharsets.US_ASCII);

  private byte[] bytes;
  private int length;

  FormJson(int initialCapacity) {
    bytes = new byte[Math.max(16, initialCapacity)];
  }

  int length() {
    return length;
  }

  byte[] array() {
    return bytes;
  }

  void reset() {
    length = 0;
  }

  /** Text that needs no escaping in JSON or a form value: the structure and field names. */
  FormJson raw(String ascii) {
    ensure(ascii.length());
    for (int i = 0; i < ascii.length(); i++) {
      bytes[length++] = (byte) ascii.charAt(i);
    }
    return this;
  }

  FormJson raw(char c) {
    ensure(1);
    bytes[length++] = (byte) c;
    return this;
  }

  FormJson bytes(byte[] b) {
    return bytes(b, 0, b.length);
  }

  FormJson bytes(byte[] b, int from, int count) {
    ensure(count);
    System.arraycopy(b, from, bytes, length, count);
    length += count;
    return this;
  }

  FormJson bytes(FormJson other) {
    return bytes(other.bytes, 0, other.length);
  }

  FormJson number(long n) {
    if (n == Long.MIN_VALUE) {
      return bytes(MIN_LONG);
    }
    ensure(20);
    if (n < 0) {
      bytes[length++] = '-';
      n = -n;
    }
    int digits = 1;
    for (long rest = n / 10; rest > 0; rest /= 10) {
      digits++;
    }
    for (int i = length + digits - 1; i >= length; i--) {
      bytes[i] = (byte) ('0' + n % 10);
      n /= 10;
    }
    length += digits;
    return this;
  }

  /** {@code s} as a quoted JSON string, form-escaped. */
  FormJson string(String s) {
    ensure(s.length() + 2);
    bytes[length++] = '"';
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> raw("\\\"");
        case '\\' -> raw("\\\\");
        case '\n' -> raw("\\n");
        case '\r' -> raw("\\r");
        case '\t' -> raw("\\t");
        case ' ' -> raw('+');
        case '%', '&', '+', '=' -> escaped((byte) c);
        default -> {
          if (c < 0x20 || c == 0x7f) {
            raw("\\u00").raw((char) HEX[c >> 4]).raw((char) HEX[c & 0xF]);
          } else if (c < 0x80) {
            raw(c);
          } else {
            int end = Character.isHighSurrogate(c) && i + 1 < s.length() ? i + 2 : i + 1;
            for (byte b : s.substring(i, end).getBytes(StandardCharsets.UTF_8)) {
              escaped(b);
            }
            i = end - 1;
          }
        }
      }
    }
    return raw('"');
  }

  private void escaped(byte b) {
    ensure(3);
    bytes[length++] = '%';
    bytes[length++] = HEX[(b >> 4) & 0xF];
    bytes[length++] = HEX[b & 0xF];
  }

  private void ensure(int more) {
    if (length + more > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
    }
  }

  @Override
  public String toString() {
    return new String(bytes, 0, length, StandardCharsets.US_ASCII);
  }
}
