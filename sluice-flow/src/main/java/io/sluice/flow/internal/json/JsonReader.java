package io.sluice.flow.internal.json;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict, bounded RFC 8259 reader for rule documents. It returns plain values: {@code Map<String,
 * Object>} (insertion-ordered), {@code List<Object>}, {@code String}, {@code BigDecimal}, {@code
 * Boolean} and {@link #NULL}. Anything RFC 8259 does not allow is an error: comments, trailing
 * commas, single quotes, leading zeros, unescaped control characters, lone surrogates, duplicate
 * keys, text after the value. A leading byte-order mark is skipped.
 *
 * <p>Bounds protect the caller from hostile or broken documents: the text length, nesting depth and
 * number of values are capped, and the parser is iterative in its scanning and recursive only to
 * the depth cap. Errors say the line and column.
 */
public final class JsonReader {

  /** The JSON {@code null} value (a map may hold it; Java null is never returned). */
  public static final Object NULL =
      new Object() {
        @Override
        public String toString() {
          return "null";
        }
      };

  /** Default cap on document length in chars: rule documents are small. */
  public static final int DEFAULT_MAX_CHARS = 4 * 1024 * 1024;

  /** Default cap on nesting depth. */
  public static final int DEFAULT_MAX_DEPTH = 32;

  /** Default cap on the number of values (objects, arrays, scalars) in a document. */
  public static final int DEFAULT_MAX_VALUES = 1_000_000;

  private static final int MAX_NUMBER_CHARS = 64;

  private final String text;
  private final int maxDepth;
  private final int maxValues;
  private int pos;
  private int values;

  private JsonReader(String text, int maxDepth, int maxValues) {
    this.text = text;
    this.maxDepth = maxDepth;
    this.maxValues = maxValues;
  }

  /** Parses one JSON document with the default bounds. */
  public static Object parse(String text) throws MalformedJsonException {
    return parse(text, DEFAULT_MAX_CHARS, DEFAULT_MAX_DEPTH, DEFAULT_MAX_VALUES);
  }

  /** Parses one JSON document with explicit bounds. */
  public static Object parse(String text, int maxChars, int maxDepth, int maxValues)
      throws MalformedJsonException {
    if (text == null) {
      throw new MalformedJsonException("no document (null)");
    }
    if (text.length() > maxChars) {
      throw new MalformedJsonException(
          "document is " + text.length() + " chars, more than the limit of " + maxChars);
    }
    JsonReader reader = new JsonReader(text, maxDepth, maxValues);
    if (!text.isEmpty() && text.charAt(0) == '\uFEFF') {
      reader.pos = 1;
    }
    reader.skipWhitespace();
    if (reader.pos >= text.length()) {
      throw reader.error("empty document");
    }
    Object value = reader.readValue(0);
    reader.skipWhitespace();
    if (reader.pos < text.length()) {
      throw reader.error("unexpected " + reader.describeCurrent() + " after the document");
    }
    return value;
  }

  private Object readValue(int depth) throws MalformedJsonException {
    if (++values > maxValues) {
      throw error("more than " + maxValues + " values");
    }
    char c = text.charAt(pos);
    switch (c) {
      case '{':
        return readObject(depth + 1);
      case '[':
        return readArray(depth + 1);
      case '"':
        return readString();
      case 't':
        expectWord("true");
        return Boolean.TRUE;
      case 'f':
        expectWord("false");
        return Boolean.FALSE;
      case 'n':
        expectWord("null");
        return NULL;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          return readNumber();
        }
        throw error("unexpected " + describeCurrent());
    }
  }

  private Map<String, Object> readObject(int depth) throws MalformedJsonException {
    checkDepth(depth);
    pos++;
    Map<String, Object> object = new LinkedHashMap<>();
    skipWhitespace();
    if (peek() == '}') {
      pos++;
      return Collections.unmodifiableMap(object);
    }
    while (true) {
      skipWhitespace();
      if (peek() != '"') {
        throw error("expected a quoted member name but found " + describeCurrent());
      }
      int keyAt = pos;
      String key = readString();
      skipWhitespace();
      if (peek() != ':') {
        throw error("expected ':' after member name but found " + describeCurrent());
      }
      pos++;
      skipWhitespace();
      requireMore("a value");
      Object value = readValue(depth);
      if (object.putIfAbsent(key, value) != null) {
        pos = keyAt;
        throw error("duplicate member \"" + key + "\"");
      }
      skipWhitespace();
      char c = peek();
      if (c == ',') {
        pos++;
      } else if (c == '}') {
        pos++;
        return Collections.unmodifiableMap(object);
      } else {
        throw error("expected ',' or '}' but found " + describeCurrent());
      }
    }
  }

  private List<Object> readArray(int depth) throws MalformedJsonException {
    checkDepth(depth);
    pos++;
    List<Object> array = new ArrayList<>();
    skipWhitespace();
    if (peek() == ']') {
      pos++;
      return Collections.unmodifiableList(array);
    }
    while (true) {
      skipWhitespace();
      requireMore("a value");
      array.add(readValue(depth));
      skipWhitespace();
      char c = peek();
      if (c == ',') {
        pos++;
      } else if (c == ']') {
        pos++;
        return Collections.unmodifiableList(array);
      } else {
        throw error("expected ',' or ']' but found " + describeCurrent());
      }
    }
  }

  private String readString() throws MalformedJsonException {
    int start = ++pos;
    StringBuilder out = null;
    while (true) {
      if (pos >= text.length()) {
        throw error("unterminated string");
      }
      char c = text.charAt(pos);
      if (c == '"') {
        String s = out == null ? text.substring(start, pos) : out.toString();
        pos++;
        return s;
      }
      if (c < 0x20) {
        throw error("unescaped control character U+" + hex4(c) + " in string");
      }
      if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c)
            && pos + 1 < text.length()
            && Character.isLowSurrogate(text.charAt(pos + 1))) {
          if (out != null) {
            out.append(c).append(text.charAt(pos + 1));
          }
          pos += 2;
          continue;
        }
        throw error("lone surrogate U+" + hex4(c) + " in string");
      }
      if (c == '\\') {
        if (out == null) {
          out = new StringBuilder(text.length() - start < 64 ? 64 : 256);
          out.append(text, start, pos);
        }
        readEscape(out);
        continue;
      }
      if (out != null) {
        out.append(c);
      }
      pos++;
    }
  }

  private void readEscape(StringBuilder out) throws MalformedJsonException {
    pos++;
    if (pos >= text.length()) {
      throw error("unterminated escape");
    }
    char e = text.charAt(pos++);
    switch (e) {
      case '"' -> out.append('"');
      case '\\' -> out.append('\\');
      case '/' -> out.append('/');
      case 'b' -> out.append('\b');
      case 'f' -> out.append('\f');
      case 'n' -> out.append('\n');
      case 'r' -> out.append('\r');
      case 't' -> out.append('\t');
      case 'u' -> {
        char unit = readHex4();
        if (Character.isHighSurrogate(unit)) {
          if (pos + 1 < text.length() && text.charAt(pos) == '\\' && text.charAt(pos + 1) == 'u') {
            pos += 2;
            char low = readHex4();
            if (!Character.isLowSurrogate(low)) {
              throw error("high surrogate \\u" + hex4(unit) + " not followed by a low surrogate");
            }
            out.append(unit).append(low);
          } else {
            throw error("lone surrogate \\u" + hex4(unit));
          }
        } else if (Character.isLowSurrogate(unit)) {
          throw error("lone surrogate \\u" + hex4(unit));
        } else {
          out.append(unit);
        }
      }
      default -> {
        pos--;
        throw error("invalid escape \\" + e);
      }
    }
  }

  private char readHex4() throws MalformedJsonException {
    if (pos + 4 > text.length()) {
      throw error("truncated \\u escape");
    }
    int value = 0;
    for (int i = 0; i < 4; i++) {
      char c = text.charAt(pos);
      int digit;
      if (c >= '0' && c <= '9') {
        digit = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        digit = c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        digit = c - 'A' + 10;
      } else {
        throw error("invalid hex digit in \\u escape");
      }
      value = value * 16 + digit;
      pos++;
    }
    return (char) value;
  }

  private BigDecimal readNumber() throws MalformedJsonException {
    int start = pos;
    if (peek() == '-') {
      pos++;
    }
    if (peek() == '0') {
      pos++;
      if (isDigit(peek())) {
        throw error("leading zero in number");
      }
    } else if (isDigit(peek())) {
      skipDigits();
    } else {
      throw error("expected a digit but found " + describeCurrent());
    }
    if (peek() == '.') {
      pos++;
      if (!isDigit(peek())) {
        throw error("expected a digit after '.' but found " + describeCurrent());
      }
      skipDigits();
    }
    if (peek() == 'e' || peek() == 'E') {
      pos++;
      if (peek() == '+' || peek() == '-') {
        pos++;
      }
      if (!isDigit(peek())) {
        throw error("expected a digit in the exponent but found " + describeCurrent());
      }
      skipDigits();
    }
    if (pos - start > MAX_NUMBER_CHARS) {
      pos = start;
      throw error("number longer than " + MAX_NUMBER_CHARS + " chars");
    }
    BigDecimal number = new BigDecimal(text.substring(start, pos));
    if (Math.abs((long) number.scale()) > 1000) {
      pos = start;
      throw error("number exponent out of range");
    }
    return number;
  }

  private void skipDigits() {
    while (isDigit(peek())) {
      pos++;
    }
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private void expectWord(String word) throws MalformedJsonException {
    if (!text.startsWith(word, pos)) {
      throw error("unexpected " + describeCurrent());
    }
    pos += word.length();
  }

  private void skipWhitespace() {
    while (pos < text.length()) {
      char c = text.charAt(pos);
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        pos++;
      } else {
        return;
      }
    }
  }

  /** The current char, or U+FFFF at the end (which no JSON grammar rule accepts). */
  private char peek() {
    return pos < text.length() ? text.charAt(pos) : '\uFFFF';
  }

  private void requireMore(String what) throws MalformedJsonException {
    if (pos >= text.length()) {
      throw error("expected " + what + " but the document ended");
    }
  }

  private void checkDepth(int depth) throws MalformedJsonException {
    if (depth > maxDepth) {
      throw error("nesting deeper than " + maxDepth);
    }
  }

  private String describeCurrent() {
    if (pos >= text.length()) {
      return "end of document";
    }
    char c = text.charAt(pos);
    if (c < 0x20 || c > 0x7e) {
      return "character U+" + hex4(c);
    }
    return "'" + c + "'";
  }

  private static String hex4(char c) {
    String h = Integer.toHexString(c).toUpperCase(java.util.Locale.ROOT);
    return "0000".substring(h.length()) + h;
  }

  private MalformedJsonException error(String message) {
    int line = 1;
    int column = 1;
    for (int i = 0; i < Math.min(pos, text.length()); i++) {
      if (text.charAt(i) == '\n') {
        line++;
        column = 1;
      } else {
        column++;
      }
    }
    return new MalformedJsonException(
        "malformed JSON at line " + line + ", column " + column + ": " + message);
  }
}
