package io.sluice.flow;

import io.sluice.flow.internal.rule.AuthorityRuleSpec;
import io.sluice.flow.internal.rule.DegradeRuleSpec;
import io.sluice.flow.internal.rule.FlowRuleSpec;
import io.sluice.flow.internal.rule.ParamFlowRuleSpec;
import io.sluice.flow.internal.rule.RuleSpec;
import io.sluice.flow.internal.rule.SystemRuleSpec;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The loaded rules of every kind, indexed by resource name for compiling guards. Immutable; a new
 * one is built under the registry's rule lock on every load.
 */
final class RuleIndex {

  static final RuleIndex EMPTY = new RuleIndex(new EnumMap<>(RuleKind.class));

  private final Map<RuleKind, List<RuleSpec>> byKind;
  private final Map<String, List<FlowRuleSpec>> flows = new HashMap<>();
  private final List<FlowRuleSpec> regexFlows = new ArrayList<>();
  private final List<Pattern> regexPatterns = new ArrayList<>();
  private final Map<String, List<DegradeRuleSpec>> degrades = new HashMap<>();
  private final Map<String, List<ParamFlowRuleSpec>> params = new HashMap<>();
  private final Map<String, List<AuthorityRuleSpec>> authorities = new HashMap<>();
  private final List<SystemRuleSpec> systems = new ArrayList<>();
  private final Set<String> related = new HashSet<>();
  private final Set<String> named = new HashSet<>();

  private RuleIndex(Map<RuleKind, List<RuleSpec>> byKind) {
    this.byKind = byKind;
    for (List<RuleSpec> specs : byKind.values()) {
      for (RuleSpec spec : specs) {
        add(spec);
      }
    }
  }

  /** This index with {@code kind}'s rules replaced. */
  RuleIndex with(RuleKind kind, List<RuleSpec> specs) {
    Map<RuleKind, List<RuleSpec>> next = new EnumMap<>(RuleKind.class);
    next.putAll(byKind);
    next.put(kind, List.copyOf(specs));
    return new RuleIndex(next);
  }

  private void add(RuleSpec spec) {
    if (spec instanceof FlowRuleSpec f) {
      if (f.regex()) {
        regexFlows.add(f);
        regexPatterns.add(Pattern.compile(f.resource()));
      } else {
        flows.computeIfAbsent(f.resource(), k -> new ArrayList<>()).add(f);
        named.add(f.resource());
      }
      if (f.strategy() == FlowRuleSpec.STRATEGY_RELATE) {
        related.add(f.refResource());
        named.add(f.refResource());
      }
    } else if (spec instanceof DegradeRuleSpec d) {
      degrades.computeIfAbsent(d.resource(), k -> new ArrayList<>()).add(d);
      named.add(d.resource());
    } else if (spec instanceof ParamFlowRuleSpec p) {
      params.computeIfAbsent(p.resource(), k -> new ArrayList<>()).add(p);
      named.add(p.resource());
    } else if (spec instanceof AuthorityRuleSpec a) {
      authorities.computeIfAbsent(a.resource(), k -> new ArrayList<>()).add(a);
      named.add(a.resource());
    } else if (spec instanceof SystemRuleSpec s) {
      systems.add(s);
    }
  }

  List<RuleSpec> rules(RuleKind kind) {
    return byKind.getOrDefault(kind, List.of());
  }

  /** Every loaded rule of every kind. */
  List<RuleSpec> all() {
    List<RuleSpec> all = new ArrayList<>();
    for (List<RuleSpec> specs : byKind.values()) {
      all.addAll(specs);
    }
    return all;
  }

  /** Names that rules mention exactly (as resource or related resource): they always get state. */
  Set<String> namedResources() {
    return named;
  }

  /** Whether any rule applies to or refers to {@code name}. */
  boolean mentions(String name) {
    if (named.contains(name)) {
      return true;
    }
    for (Pattern pattern : regexPatterns) {
      if (pattern.matcher(name).matches()) {
        return true;
      }
    }
    return false;
  }

  boolean isRelated(String name) {
    return related.contains(name);
  }

  /** Flow rules for {@code name}: exact ones, then regex ones whose pattern matches it. */
  List<FlowRuleSpec> flowsFor(String name) {
    List<FlowRuleSpec> exact = flows.getOrDefault(name, List.of());
    if (regexFlows.isEmpty()) {
      return exact;
    }
    List<FlowRuleSpec> all = new ArrayList<>(exact);
    for (int i = 0; i < regexFlows.size(); i++) {
      if (regexPatterns.get(i).matcher(name).matches()) {
        all.add(regexFlows.get(i));
      }
    }
    return all;
  }

  List<DegradeRuleSpec> degradesFor(String name) {
    return degrades.getOrDefault(name, List.of());
  }

  List<ParamFlowRuleSpec> paramsFor(String name) {
    return params.getOrDefault(name, List.of());
  }

  List<AuthorityRuleSpec> authoritiesFor(String name) {
    return authorities.getOrDefault(name, List.of());
  }

  List<SystemRuleSpec> systemRules() {
    return systems;
  }
}
