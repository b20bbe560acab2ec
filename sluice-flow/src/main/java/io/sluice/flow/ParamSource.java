package io.sluice.flow;

import java.util.Locale;

/**
 * Where a hot-parameter rule takes its value from when it names an attribute of the call instead of
 * an argument index: Sluice's {@code paramSource} extension of Sentinel's {@code ParamFlowRule},
 * e.g. {@code "paramSource": {"header": "x-user-id"}}. The caller of {@link Resource} resolves it
 * through {@link CallAttributes}; a rule with a source ignores {@code paramIdx}.
 *
 * @param kind which part of the call
 * @param name the attribute's name (a header name is compared case-insensitively by readers)
 */
public record ParamSource(Kind kind, String name) {

  /** The attributes a rule can name: those every HTTP request has. */
  public enum Kind {
    HEADER,
    QUERY,
    COOKIE;

    /** The member name in the rule JSON: {@code header}, {@code query}, {@code cookie}. */
    public String jsonName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public ParamSource {
    if (kind == null || name == null || name.isBlank()) {
      throw new IllegalArgumentException("a parameter source needs a kind and a name");
    }
  }

  @Override
  public String toString() {
    return kind.jsonName() + " '" + name + "'";
  }
}
