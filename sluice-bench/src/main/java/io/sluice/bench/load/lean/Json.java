package io.sluice.bench.load.lean;

import java.nio.charset.StandardCharsets;

/**
 * The little JSON the lean driver needs, without an object mapper on the hot path: quoting strings
 * into request bodies, and finding one top-level scalar field in a response body.
 *
 * <p>The field scan looks for the bytes {@code "name":}. Inside a JSON string every quote is
 * escaped, so those bytes can only be a key; callers use it only for keys that occur once in the
 * message (such as {@code resultCode} or {@code requestId}), and parse nested structures with
 * Jackson.
 */
public final class Json {
  private Json() {}

  /** Appends {@code s} as a JSON string literal. */
  public static StringBuilder quote(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"');
  }

  /** The integer value of {@code "name":}, or {@code missing} when the key is absent. */
  public static int intField(byte[] body, String name, int missing) {
    int at = valueStart(body, name);
    if (at < 0) {
      return missing;
    }
    boolean negative = false;
    if (at < body.length && body[at] == '-') {
      negative = true;
      at++;
    }
    int value = 0;
    boolean digits = false;
    while (at < body.length && body[at] >= '0' && body[at] <= '9') {
      value = value * 10 + (body[at++] - '0');
      digits = true;
    }
    if (!digits) {
      return missing;
    }
    return negative ? -value : value;
  }

  /**
   * The string value of {@code "name":}, unescaped, or null when the key is absent or its value is
   * not a string.
   */
  public static String stringField(byte[] body, String name) {
    int at = valueStart(body, name);
    if (at < 0 || at >= body.length || body[at] != '"') {
      return null;
    }
    int start = ++at;
    boolean escaped = false;
    while (at < body.length && body[at] != '"') {
      if (body[at] == '\\') {
        escaped = true;
        at++;
      }
      at++;
    }
    if (at >= body.length) {
      return null;
    }
    String raw = new String(body, start, at - start, StandardCharsets.UTF_8);
    return escaped ? unescape(raw) : raw;
  }

  private static int valueStart(byte[] body, String name) {
    byte[] key = ("\"" + name + "\":").getBytes(StandardCharsets.UTF_8);
    outer:
    for (int i = 0; i + key.length <= body.length; i++) {
      for (int k = 0; k < key.length; k++) {
        if (body[i + k] != key[k]) {
          continue outer;
        }
      }
      int at = i + key.length;
      while (at < body.length && body[at] == ' ') {
        at++;
      }
      return at;
    }
    return -1;
  }

  private static String unescape(String raw) {
    StringBuilder out = new StringBuilder(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c != '\\' || i + 1 >= raw.length()) {
        out.append(c);
        continue;
      }
      char e = raw.charAt(++i);
      switch (e) {
        case 'n' -> out.append('\n');
        case 'r' -> out.append('\r');
        case 't' -> out.append('\t');
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'u' -> {
          if (i + 4 < raw.length()) {
            out.append((char) Integer.parseInt(raw.substring(i + 1, i + 5), 16));
            i += 4;
          }
        }
        default -> out.append(e);
      }
    }
    return out.toString();
  }
}
