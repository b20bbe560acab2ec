package io.sluice.flow.internal.rule;

import io.sluice.flow.RuleKind;
import java.util.Set;
import java.util.TreeSet;

/**
 * A Sentinel {@code AuthorityRule}: a white or black list of origins.
 *
 * @param resource the resource
 * @param origins the listed origins ({@code limitApp}, comma-separated), trimmed
 * @param whiteList true for a white list (strategy 0), false for a black list (strategy 1)
 */
public record AuthorityRuleSpec(String resource, Set<String> origins, boolean whiteList)
    implements RuleSpec {

  @Override
  public RuleKind kind() {
    return RuleKind.AUTHORITY;
  }

  @Override
  public String describe() {
    return "authority rule {resource="
        + resource
        + ", "
        + (whiteList ? "white list " : "black list ")
        + String.join(",", new TreeSet<>(origins))
        + "}";
  }
}
