package io.sluice.flow.lane;

import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One entry condition: a value read from the request ({@link RequestReader.Source} and name)
 * compared with an operator. Immutable and compiled once per lane document (a regex is compiled
 * when the document is read, never per request). A value the request does not carry never matches.
 */
public final class Condition {
  /** How the value is compared. */
  public enum Operator {
    /** The value equals {@code value}. */
    EQUALS,
    /** The value is one of {@code values}. */
    ONE_OF,
    /** The value starts with {@code value}. */
    PREFIX,
    /** The whole value matches the regular expression {@code value}. */
    REGEX
  }

  private final RequestReader.Source source;
  private final String name;
  private final Operator operator;
  private final String value;
  private final Set<String> values;
  private final Pattern pattern;

  Condition(RequestReader.Source source, String name, Operator operator, List<String> values) {
    this.source = source;
    this.name = name;
    this.operator = operator;
    this.value = values.isEmpty() ? null : values.get(0);
    this.values = Set.copyOf(values);
    this.pattern = operator == Operator.REGEX ? Pattern.compile(value) : null;
  }

  public RequestReader.Source source() {
    return source;
  }

  public String name() {
    return name;
  }

  public Operator operator() {
    return operator;
  }

  <R> boolean matches(R request, RequestReader<R> reader) {
    String actual = reader.read(request, source, name);
    if (actual == null) {
      return false;
    }
    switch (operator) {
      case EQUALS:
        return actual.equals(value);
      case ONE_OF:
        return values.contains(actual);
      case PREFIX:
        return actual.startsWith(value);
      case REGEX:
        return pattern.matcher(actual).matches();
      default:
        return false;
    }
  }

  @Override
  public String toString() {
    return source.name().toLowerCase(java.util.Locale.ROOT)
        + " "
        + name
        + " "
        + operator
        + " "
        + (operator == Operator.ONE_OF ? values : value);
  }
}
