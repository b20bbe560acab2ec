package io.sluice.server.traffic.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import io.sluice.server.protocol.http.HttpApiException;
import io.sluice.server.traffic.TrafficReportBuffer;
import java.io.IOException;

/**
 * Reads an agent's report from its UTF-8 bytes, checking every field: a report that is not what the
 * agent sends is refused whole with a message naming the field, and nothing of it is stored (the
 * caller stores the buffer only once this returned).
 *
 * <pre>{@code
 * {"app":"orders","instance":"4242@host","lane":"gray","sentAt":1733000000123,"dropped":0,
 *  "seen":[{"name":"GET /orders/{id}","kind":"Spring MVC route"}],
 *  "seconds":[{"t":1733000000000,"resources":[
 *     {"name":"GET /orders/{id}","pass":10,"block":2,"failed":0,"rt":850,"p50":700,"p99":2100,
 *      "concurrency":1}]}]}
 * }</pre>
 *
 * <p>Fields may come in any order; unknown ones are skipped. Read with Jackson's streaming parser
 * over the bytes (field names are matched against its symbol table, numbers read as ints), into a
 * reused {@link TrafficReportBuffer}: a resource's name is copied as characters, never made a
 * {@code String}, so a report of known resources costs no object per row.
 */
final class TrafficReportCodec {
  static final int MAX_NAME_CHARS = 512;
  static final int MAX_ID_CHARS = 256;
  static final int MAX_SECONDS = 30;
  static final int MAX_RESOURCES = 2_000;

  private static final JsonFactory json = new JsonFactory();

  /** Reads the report in {@code utf8[from, to)} into {@code into} (reset first). */
  void read(byte[] utf8, int from, int to, TrafficReportBuffer into) {
    into.reset();
    try (JsonParser p = json.createParser(utf8, from, to - from)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw HttpApiException.invalid("report must be a JSON object");
      }
      for (String field = p.nextFieldName(); field != null; field = p.nextFieldName()) {
        JsonToken value = p.nextToken();
        switch (field) {
          case "app" -> into.app(text(p, value, "app", MAX_ID_CHARS, true));
          case "instance" -> into.instance(text(p, value, "instance", MAX_ID_CHARS, true));
          case "lane" -> into.lane(text(p, value, "lane", MAX_ID_CHARS, false));
          case "sentAt" -> into.sentAtMillis(integer(p, value, "sentAt"));
          case "dropped" -> into.dropped(count(p, value, "dropped"));
          case "seen" -> seen(p, value, into);
          case "seconds" -> seconds(p, value, into);
          default -> p.skipChildren();
        }
      }
      if (p.nextToken() != null) {
        throw HttpApiException.invalid("report: unexpected content after the report's object");
      }
    } catch (JsonProcessingException e) {
      throw HttpApiException.invalid("report is not JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw HttpApiException.invalid("report is not JSON: " + e.getMessage());
    }
    if (into.app() == null) {
      throw HttpApiException.invalid("report: 'app' is required");
    }
    if (into.instance() == null) {
      throw HttpApiException.invalid("report: 'instance' is required");
    }
    if (!into.hasSentAt()) {
      throw HttpApiException.invalid("report: 'sentAt' must be an integer");
    }
  }

  private static void seen(JsonParser p, JsonToken value, TrafficReportBuffer into)
      throws IOException {
    int entries = 0;
    while (element(p, value, "seen", ++entries, MAX_RESOURCES)) {
      String name = null;
      String kind = null;
      for (String field = p.nextFieldName(); field != null; field = p.nextFieldName()) {
        JsonToken v = p.nextToken();
        switch (field) {
          case "name" -> name = text(p, v, "name", MAX_NAME_CHARS, true);
          case "kind" -> kind = text(p, v, "kind", MAX_NAME_CHARS, false);
          default -> p.skipChildren();
        }
      }
      if (name == null) {
        throw HttpApiException.invalid("report: 'name' is required");
      }
      into.seen(name, kind);
    }
  }

  private static void seconds(JsonParser p, JsonToken value, TrafficReportBuffer into)
      throws IOException {
    while (element(p, value, "seconds", into.seconds() + 1, MAX_SECONDS)) {
      into.beginSecond();
      for (String field = p.nextFieldName(); field != null; field = p.nextFieldName()) {
        JsonToken v = p.nextToken();
        switch (field) {
          case "t" -> into.secondStart(integer(p, v, "t"));
          case "resources" -> resources(p, v, into);
          default -> p.skipChildren();
        }
      }
      if (!into.secondStarted()) {
        throw HttpApiException.invalid("report: 't' must be an integer");
      }
    }
  }

  private static void resources(JsonParser p, JsonToken value, TrafficReportBuffer into)
      throws IOException {
    while (element(p, value, "resources", into.secondRows() + 1, MAX_RESOURCES)) {
      int row = into.beginRow();
      for (String field = p.nextFieldName(); field != null; field = p.nextFieldName()) {
        JsonToken v = p.nextToken();
        switch (field) {
          case "name" -> name(p, v, row, into);
          case "pass" -> into.rowValue(row, TrafficReportBuffer.PASS, count(p, v, "pass"));
          case "block" -> into.rowValue(row, TrafficReportBuffer.BLOCK, count(p, v, "block"));
          case "failed" -> into.rowValue(row, TrafficReportBuffer.FAILED, count(p, v, "failed"));
          case "rt" -> into.rowValue(row, TrafficReportBuffer.AVG_RT, micros(p, v, "rt"));
          case "p50" -> into.rowValue(row, TrafficReportBuffer.P50_RT, micros(p, v, "p50"));
          case "p99" -> into.rowValue(row, TrafficReportBuffer.P99_RT, micros(p, v, "p99"));
          case "concurrency" ->
              into.rowValue(row, TrafficReportBuffer.CONCURRENCY, count(p, v, "concurrency"));
          default -> p.skipChildren();
        }
      }
      if (!into.rowNamed(row)) {
        throw HttpApiException.invalid("report: 'name' is required");
      }
    }
  }

  /**
   * Moves to the next object of the array {@code value} opened (absent or null: none), its {@code
   * ordinal}th; false at its end.
   */
  private static boolean element(JsonParser p, JsonToken value, String field, int ordinal, int max)
      throws IOException {
    if (value == JsonToken.VALUE_NULL) {
      return false;
    }
    if (value != JsonToken.START_ARRAY) {
      throw HttpApiException.invalid("report: '" + field + "' must be an array");
    }
    JsonToken next = p.nextToken();
    if (next == JsonToken.END_ARRAY) {
      return false;
    }
    if (next != JsonToken.START_OBJECT) {
      throw HttpApiException.invalid("report: each of '" + field + "' must be an object");
    }
    if (ordinal > max) {
      throw HttpApiException.invalid(
          "report: '" + field + "' has more than " + max + " entries, the most taken");
    }
    return true;
  }

  /** A resource's name, copied as characters (no {@code String}). */
  private static void name(JsonParser p, JsonToken value, int row, TrafficReportBuffer into)
      throws IOException {
    if (value != JsonToken.VALUE_STRING) {
      throw HttpApiException.invalid(
          value == JsonToken.VALUE_NULL
              ? "report: 'name' is required"
              : "report: 'name' must be a string");
    }
    int length = p.getTextLength();
    if (length > MAX_NAME_CHARS) {
      throw HttpApiException.invalid(
          "report: 'name' is longer than " + MAX_NAME_CHARS + " characters");
    }
    char[] chars = p.getTextCharacters();
    int offset = p.getTextOffset();
    boolean blank = true;
    for (int i = offset; i < offset + length && blank; i++) {
      blank = Character.isWhitespace(chars[i]);
    }
    if (blank) {
      throw HttpApiException.invalid("report: 'name' must not be blank");
    }
    into.rowName(row, chars, offset, length);
  }

  private static String text(
      JsonParser p, JsonToken value, String field, int maxChars, boolean required)
      throws IOException {
    if (value == JsonToken.VALUE_NULL) {
      if (required) {
        throw HttpApiException.invalid("report: '" + field + "' is required");
      }
      return null;
    }
    if (value != JsonToken.VALUE_STRING) {
      throw HttpApiException.invalid("report: '" + field + "' must be a string");
    }
    if (p.getTextLength() > maxChars) {
      throw HttpApiException.invalid(
          "report: '" + field + "' is longer than " + maxChars + " characters");
    }
    String s = p.getText();
    if (required && s.isBlank()) {
      throw HttpApiException.invalid("report: '" + field + "' must not be blank");
    }
    return s;
  }

  private static long integer(JsonParser p, JsonToken value, String field) throws IOException {
    if (value != JsonToken.VALUE_NUMBER_INT
        || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
      throw HttpApiException.invalid("report: '" + field + "' must be an integer");
    }
    return p.getLongValue();
  }

  private static int count(JsonParser p, JsonToken value, String field) throws IOException {
    if (value != JsonToken.VALUE_NUMBER_INT
        || p.getNumberType() != JsonParser.NumberType.INT
        || p.getIntValue() < 0) {
      throw HttpApiException.invalid("report: '" + field + "' must be a non-negative integer");
    }
    return p.getIntValue();
  }

  /** A response time in µs, -1 when nothing was timed (null or negative). */
  private static int micros(JsonParser p, JsonToken value, String field) throws IOException {
    if (value == JsonToken.VALUE_NULL) {
      return -1;
    }
    if (value != JsonToken.VALUE_NUMBER_INT || p.getNumberType() != JsonParser.NumberType.INT) {
      throw HttpApiException.invalid("report: '" + field + "' must be an integer (µs)");
    }
    return Math.max(-1, p.getIntValue());
  }
}
