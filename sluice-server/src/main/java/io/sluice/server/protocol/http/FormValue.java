package io.sluice.server.protocol.http;

import java.nio.charset.StandardCharsets;

/**
 * One parameter's value as bytes, for a route that reads a large value itself rather than as a
 * decoded {@code String} ({@link RequestParams#handler(long, ApiStyle, String, ParamsHandler)}):
 * either still form-encoded, a range of the request's own body, or already decoded (the value came
 * in the query string). {@link #unescape()} decodes it where it lies.
 *
 * <p>Owned by the one handler of the request it came with: not thread-safe, and {@link #unescape()}
 * rewrites the body's bytes.
 */
public final class FormValue {
  private final byte[] bytes;
  private final int from;
  private int to;
  private boolean encoded;

  private FormValue(byte[] bytes, int from, int to, boolean encoded) {
    if (from < 0 || to < from || to > bytes.length) {
      throw new IndexOutOfBoundsException("[" + from + ", " + to + ") of " + bytes.length);
    }
    this.bytes = bytes;
    this.from = from;
    this.to = to;
    this.encoded = encoded;
  }

  /**
   * {@code bytes[from, to)}, form-encoded ({@code +} a space, {@code %XX} a byte); the caller hands
   * the array over.
   */
  public static FormValue encoded(byte[] bytes, int from, int to) {
    return new FormValue(bytes, from, to, true);
  }

  /** A value decoded already (from the query string). */
  static FormValue decoded(String value) {
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    return new FormValue(utf8, 0, utf8.length, false);
  }

  /**
   * Decodes the form encoding in place, once: afterwards {@code bytes()[from(), to())} are the
   * value's bytes (UTF-8 if the client sent it; not checked here, the reader of the bytes does). A
   * broken escape is a 400.
   */
  public FormValue unescape() {
    if (encoded) {
      to = from + FormDecoder.unescapeInPlace(bytes, from, to);
      encoded = false;
    }
    return this;
  }

  public byte[] bytes() {
    return bytes;
  }

  public int from() {
    return from;
  }

  public int to() {
    return to;
  }

  /** Bytes it spans now (fewer once unescaped). */
  public int length() {
    return to - from;
  }
}
