package io.sluice.flow;

import io.sluice.flow.internal.rule.CanonicalForm;
import io.sluice.flow.internal.rule.RuleParser;
import io.sluice.flow.internal.rule.RuleSpec;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * One validated rule document: a Sentinel JSON array of one {@link RuleKind}. Parsing needs no
 * registry, so the config server can validate documents before accepting them.
 */
public final class RuleDocument {

  private final RuleKind kind;
  private final List<RuleSpec> specs;
  private final String etag;

  private RuleDocument(RuleKind kind, List<RuleSpec> specs) {
    this.kind = kind;
    this.specs = specs;
    this.etag = etagOf(specs);
  }

  /**
   * Parses and validates {@code json}. A blank document is an empty rule list (a deleted config).
   *
   * @throws InvalidRuleDocumentException naming the rule and field, if anything is wrong
   */
  public static RuleDocument parse(RuleKind kind, String json) {
    if (kind == null) {
      throw new IllegalArgumentException("kind is required");
    }
    return new RuleDocument(kind, RuleParser.parse(kind, json));
  }

  /** The kind of rules. */
  public RuleKind kind() {
    return kind;
  }

  /** The content hash, as in {@link RulesVersion#etag()}. */
  public String etag() {
    return etag;
  }

  /** The number of distinct rules. */
  public int size() {
    return specs.size();
  }

  /** A description of each rule, in document order. */
  public List<String> describeRules() {
    List<String> out = new ArrayList<>(specs.size());
    for (RuleSpec spec : specs) {
      out.add(spec.describe());
    }
    return List.copyOf(out);
  }

  /** What each rule asks for, in document order (identical rules once). */
  public List<RuleInfo> rules() {
    List<RuleInfo> out = new ArrayList<>(specs.size());
    for (RuleSpec spec : specs) {
      out.add(RuleInfo.of(spec));
    }
    return List.copyOf(out);
  }

  List<RuleSpec> specs() {
    return specs;
  }

  private static String etagOf(List<RuleSpec> specs) {
    List<String> forms = new ArrayList<>(specs.size());
    for (RuleSpec spec : specs) {
      forms.add(CanonicalForm.of(spec));
    }
    forms.sort(null);
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String form : forms) {
        sha.update(form.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) '\n');
      }
      return HexFormat.of().formatHex(sha.digest(), 0, 12);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
  }
}
