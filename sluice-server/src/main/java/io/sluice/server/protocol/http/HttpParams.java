package io.sluice.server.protocol.http;

import java.util.Map;

/**
 * The parameters of one request as Nacos (through Spring) reads them: the query string's, then the
 * form body's, the first value of a name winning. Immutable.
 */
public final class HttpParams {
  private final Map<String, String> values;
  private final String keptName;
  private final FormValue kept;

  HttpParams(Map<String, String> values) {
    this(values, null, null);
  }

  HttpParams(Map<String, String> values, String keptName, FormValue kept) {
    this.values = values;
    this.keptName = keptName;
    this.kept = kept;
  }

  /**
   * A value as bytes: for the body field the route asked to keep ({@link
   * RequestParams#handler(long, ApiStyle, String, ParamsHandler)}), still form-encoded where it
   * lies in the body; for any other (or one given in the query string), its decoded value; null
   * when absent.
   */
  public FormValue bytes(String name) {
    if (kept != null && name.equals(keptName)) {
      return kept;
    }
    String value = values.get(name);
    return value == null ? null : FormValue.decoded(value);
  }

  /** The value, or null when absent. */
  public String get(String name) {
    return values.get(name);
  }

  /** The value of the first of several names present (a v2 name and its v1 spelling). */
  public String firstOf(String name, String alternative) {
    String value = values.get(name);
    return value != null ? value : values.get(alternative);
  }

  public String getOrDefault(String name, String fallback) {
    String value = values.get(name);
    return value == null ? fallback : value;
  }

  public boolean has(String name) {
    return values.containsKey(name);
  }

  /** True when the parameter equals {@code expected}, ignoring case. */
  public boolean is(String name, String expected) {
    String value = values.get(name);
    return value != null && value.trim().equalsIgnoreCase(expected);
  }

  /** The value; a 400 naming the parameter when it is absent. */
  public String required(String name) {
    String value = values.get(name);
    if (value == null) {
      throw HttpApiException.missingParameter(name);
    }
    return value;
  }

  /**
   * An integer in {@code [min, max]}; {@code fallback} when absent or blank, a 400 when it is not a
   * number or out of range.
   */
  public int intInRange(String name, int fallback, int min, int max) {
    String value = values.get(name);
    if (value == null || value.isBlank()) {
      return fallback;
    }
    int parsed;
    try {
      parsed = Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw HttpApiException.invalid(name + " must be a number, was '" + abbreviate(value) + "'");
    }
    if (parsed < min || parsed > max) {
      throw HttpApiException.invalid(
          name + " must be between " + min + " and " + max + ", was " + parsed);
    }
    return parsed;
  }

  /** A required integer in {@code [min, max]}. */
  public int requiredInt(String name, int min, int max) {
    required(name);
    return intInRange(name, min, min, max);
  }

  /** A required long; a 400 when absent or not a number. */
  public long requiredLong(String name) {
    String value = required(name).trim();
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw HttpApiException.invalid(name + " must be a number, was '" + abbreviate(value) + "'");
    }
  }

  static String abbreviate(String value) {
    return value.length() <= 64 ? value : value.substring(0, 64) + "...";
  }
}
