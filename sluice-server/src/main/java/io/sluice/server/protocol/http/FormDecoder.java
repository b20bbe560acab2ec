package io.sluice.server.protocol.http;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Decodes {@code application/x-www-form-urlencoded} text (a form body or a query string) strictly:
 * {@code +} is a space, {@code %XX} a byte, the bytes UTF-8. A broken escape or invalid UTF-8 is
 * refused with a 400 rather than guessed at, so a malformed request changes nothing.
 */
final class FormDecoder {
  /** As Tomcat's default {@code maxParameterCount}: a request with more is refused. */
  static final int MAX_PARAMETERS = 10_000;

  private FormDecoder() {}

  /**
   * Adds each {@code name=value} pair of {@code form} to {@code into}, keeping the first value of a
   * name (as {@code ServletRequest.getParameter} does), and returns how many pairs it read.
   */
  static int decode(byte[] form, Map<String, String> into, int pairsSoFar) {
    int[] pairs = {pairsSoFar};
    decode(form, into, pairs, null);
    return pairs[0];
  }

  /**
   * As {@link #decode}, but the first {@code keep} pair's value (when the map has none yet) is not
   * decoded: it is returned as the range of {@code form} it spans, still encoded (or null when
   * there is none), for a route that reads a large value from its bytes.
   */
  static FormValue decodeKeeping(
      byte[] form, Map<String, String> into, int pairsSoFar, String keep) {
    return decode(form, into, new int[] {pairsSoFar}, keep);
  }

  private static FormValue decode(byte[] form, Map<String, String> into, int[] pairs, String keep) {
    FormValue kept = null;
    byte[] scratch = null;
    int start = 0;
    while (start <= form.length) {
      int end = indexOf(form, (byte) '&', start);
      if (end > start) {
        if (++pairs[0] > MAX_PARAMETERS) {
          throw HttpApiException.invalid(
              "more than " + MAX_PARAMETERS + " parameters in one request");
        }
        int equals = indexOf(form, (byte) '=', start);
        int nameEnd = Math.min(equals, end);
        if (keep != null
            && kept == null
            && nameEnd < end
            && equalsAscii(form, start, nameEnd, keep)
            && !into.containsKey(keep)) {
          kept = FormValue.encoded(form, nameEnd + 1, end);
        } else {
          if (scratch == null) {
            scratch = new byte[Math.min(form.length, 1 << 16)];
          }
          String name = unescape(form, start, nameEnd, scratch);
          String value = nameEnd < end ? unescape(form, nameEnd + 1, end, scratch) : "";
          into.putIfAbsent(name, value);
        }
      }
      start = end + 1;
    }
    return kept;
  }

  /** Whether {@code form[from, to)} is {@code name} written plainly (no escape in it). */
  private static boolean equalsAscii(byte[] form, int from, int to, String name) {
    if (to - from != name.length()) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      if (form[from + i] != name.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Decodes {@code form[from, to)} into its own first bytes ({@code +} a space, {@code %XX} a byte)
   * and returns the decoded length; a broken escape is a 400. Not checked as UTF-8.
   */
  static int unescapeInPlace(byte[] form, int from, int to) {
    int length = 0;
    for (int i = from; i < to; i++) {
      byte b = form[i];
      if (b == '+') {
        b = ' ';
      } else if (b == '%') {
        b = escaped(form, i, to);
        i += 2;
      }
      form[from + length++] = b;
    }
    return length;
  }

  private static byte escaped(byte[] form, int i, int to) {
    if (i + 2 >= to) {
      throw HttpApiException.invalid("malformed form encoding: incomplete escape at the end");
    }
    int high = Character.digit(form[i + 1], 16);
    int low = Character.digit(form[i + 2], 16);
    if (high < 0 || low < 0) {
      throw HttpApiException.invalid(
          "malformed form encoding: '%"
              + (char) (form[i + 1] & 0xFF)
              + (char) (form[i + 2] & 0xFF)
              + "' is not an escape");
    }
    return (byte) (high << 4 | low);
  }

  private static int indexOf(byte[] bytes, byte wanted, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] == wanted) {
        return i;
      }
    }
    return bytes.length;
  }

  private static String unescape(byte[] form, int from, int to, byte[] scratch) {
    byte[] out = to - from <= scratch.length ? scratch : new byte[to - from];
    int length = 0;
    for (int i = from; i < to; i++) {
      byte b = form[i];
      if (b == '+') {
        out[length++] = ' ';
      } else if (b == '%') {
        out[length++] = escaped(form, i, to);
        i += 2;
      } else {
        out[length++] = b;
      }
    }
    CharsetDecoder utf8 =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      CharBuffer chars = utf8.decode(ByteBuffer.wrap(out, 0, length));
      return chars.toString();
    } catch (CharacterCodingException e) {
      throw HttpApiException.invalid("malformed form encoding: not UTF-8");
    }
  }
}
