package io.sluice.flow;

/**
 * Identifies the rules of one kind a registry enforces.
 *
 * @param kind the rule kind
 * @param version 0 before any load, then 1, 2, ... for each load that changed the rules
 * @param etag a hash of the rules' content (order and formatting ignored); equal etags mean equal
 *     rules, in any JVM
 * @param ruleCount how many distinct rules are loaded
 */
public record RulesVersion(RuleKind kind, long version, String etag, int ruleCount) {}
