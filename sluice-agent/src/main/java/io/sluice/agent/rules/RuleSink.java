package io.sluice.agent.rules;

/**
 * Where the watcher delivers rule documents. Each call replaces every rule of that type (Sentinel's
 * datasource semantics: no deltas); null content means the document does not exist, i.e. no rules.
 */
public interface RuleSink {
  /**
   * Parses and applies the document.
   *
   * @throws InvalidRulesException if the document is not valid; the rules in force stay unchanged
   */
  void apply(RuleType type, String json) throws InvalidRulesException;
}
