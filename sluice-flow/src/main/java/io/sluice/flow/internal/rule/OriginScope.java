package io.sluice.flow.internal.rule;

import java.util.Set;
import java.util.TreeSet;

/**
 * Who a rule's {@code limitApp} applies to: every caller ({@code default}), callers no other rule
 * of the resource names ({@code other}), or the named origins (a comma-separated list).
 *
 * @param kind which of the three
 * @param names the named origins, sorted; empty unless {@link Kind#NAMED}
 */
public record OriginScope(Kind kind, Set<String> names) {

  /** The three meanings of {@code limitApp}. */
  public enum Kind {
    DEFAULT,
    OTHER,
    NAMED
  }

  public static final OriginScope DEFAULT = new OriginScope(Kind.DEFAULT, Set.of());
  public static final OriginScope OTHER = new OriginScope(Kind.OTHER, Set.of());

  /** Parses {@code limitApp}; blank means {@code default}, as in Sentinel. */
  public static OriginScope parse(String limitApp) {
    if (limitApp == null || limitApp.isBlank() || limitApp.trim().equals("default")) {
      return DEFAULT;
    }
    if (limitApp.trim().equals("other")) {
      return OTHER;
    }
    Set<String> names = new TreeSet<>();
    for (String name : limitApp.split(",")) {
      if (!name.isBlank()) {
        names.add(name.trim());
      }
    }
    return new OriginScope(Kind.NAMED, Set.copyOf(names));
  }

  @Override
  public String toString() {
    return switch (kind) {
      case DEFAULT -> "default";
      case OTHER -> "other";
      case NAMED -> String.join(",", new TreeSet<>(names));
    };
  }
}
