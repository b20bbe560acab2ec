package io.sluice.server.protocol.grpc;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Arrays;
import java.util.Map;

/**
 * Reads one hot request type's JSON body with Jackson's streaming parser, field by field into the
 * request, without databind's per-call machinery (bean deserializers, a {@code LinkedHashMap} per
 * map, boxing through type coercion).
 *
 * <p>Contract: a decoder accepts only the plain shape clients send (each field's usual JSON type,
 * or null where databind allows it) and <em>declines</em> everything else by calling {@link
 * #decline()} — an unexpected token type, a duplicate or null metadata entry, more entries than
 * {@code maxEntries}, malformed JSON. {@link MessageCodec} then reads the same body with databind,
 * so every body that is accepted or refused, and every error message, stays exactly databind's;
 * where a decoder accepts, its request equals databind's field by field ({@code
 * RequestBodyFuzzTest} checks both on every input). Unknown fields are skipped, as databind skips
 * them.
 */
@FunctionalInterface
public interface BodyDecoder<R extends NacosRequest> {
  /** Reads the request from a parser positioned before the body's first token. */
  R decode(JsonParser json) throws IOException;

  /** Thrown by a decoder that leaves the body to databind; preallocated, without a stack trace. */
  final class Declined extends RuntimeException {
    static final Declined INSTANCE = new Declined();

    private Declined() {
      super("left to databind", null, false, false);
    }
  }

  /** Leaves this body to databind. */
  static Declined decline() {
    throw Declined.INSTANCE;
  }

  /** Moves to the body's root object, or declines when the body is not one. */
  static void startObject(JsonParser json) throws IOException {
    if (json.nextToken() != JsonToken.START_OBJECT) {
      decline();
    }
  }

  /** The current value as a string: a JSON string or null; anything else declines. */
  static String string(JsonParser json) throws IOException {
    JsonToken token = json.currentToken();
    if (token == JsonToken.VALUE_STRING) {
      return json.getText();
    }
    if (token == JsonToken.VALUE_NULL) {
      return null;
    }
    throw decline();
  }

  /** The current value as an int: a JSON integer that fits; anything else (null too) declines. */
  static int intValue(JsonParser json) throws IOException {
    if (json.currentToken() == JsonToken.VALUE_NUMBER_INT
        && json.getNumberType() == JsonParser.NumberType.INT) {
      return json.getIntValue();
    }
    throw decline();
  }

  /** The current value as a nullable int: a JSON integer that fits, or null. */
  static Integer integer(JsonParser json) throws IOException {
    return json.currentToken() == JsonToken.VALUE_NULL ? null : intValue(json);
  }

  /** The current value as a nullable double: any JSON number, or null. */
  static Double number(JsonParser json) throws IOException {
    JsonToken token = json.currentToken();
    if (token == JsonToken.VALUE_NUMBER_FLOAT || token == JsonToken.VALUE_NUMBER_INT) {
      return json.getDoubleValue();
    }
    if (token == JsonToken.VALUE_NULL) {
      return null;
    }
    throw decline();
  }

  /** The current value as a boolean: JSON true or false; anything else (null too) declines. */
  static boolean bool(JsonParser json) {
    JsonToken token = json.currentToken();
    if (token == JsonToken.VALUE_TRUE) {
      return true;
    }
    if (token == JsonToken.VALUE_FALSE) {
      return false;
    }
    throw decline();
  }

  /** The current value as a nullable boolean: true, false or null. */
  static Boolean booleanOrNull(JsonParser json) {
    return json.currentToken() == JsonToken.VALUE_NULL ? null : bool(json);
  }

  /**
   * The current value as a map of strings: an object whose values are all strings, or null.
   * Declines a duplicate key, a non-string value and more than {@code maxEntries} entries, so the
   * map built is never larger than that; databind then reads the body and the caller's own check
   * refuses it.
   */
  @SuppressWarnings("unchecked")
  static Map<String, String> stringMap(JsonParser json, int maxEntries) throws IOException {
    JsonToken token = json.currentToken();
    if (token == JsonToken.VALUE_NULL) {
      return null;
    }
    if (token != JsonToken.START_OBJECT) {
      throw decline();
    }
    Map.Entry<String, String>[] entries = null;
    int size = 0;
    String key;
    while ((key = json.nextFieldName()) != null) {
      if (json.nextToken() != JsonToken.VALUE_STRING || size == maxEntries) {
        throw decline();
      }
      if (entries == null) {
        entries = new Map.Entry[4];
      } else if (size == entries.length) {
        entries = Arrays.copyOf(entries, Math.min(maxEntries, size * 2));
      }
      entries[size++] = Map.entry(key, json.getText());
    }
    if (json.currentToken() != JsonToken.END_OBJECT) {
      throw decline();
    }
    if (size == 0) {
      return Map.of();
    }
    try {
      return Map.ofEntries(size == entries.length ? entries : Arrays.copyOf(entries, size));
    } catch (IllegalArgumentException duplicateKey) {
      throw decline();
    }
  }

  /**
   * Skips the current value whatever it is (the value of a field the decoder does not read), as
   * databind skips unknown properties.
   */
  static void skip(JsonParser json) throws IOException {
    json.skipChildren();
  }
}
