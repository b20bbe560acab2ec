package io.sluice.flow.internal.rule;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A stable text for a rule: every field, sets and maps sorted, the same in every JVM. Etags are
 * hashes of these, so the same rules give the same etag wherever they are loaded.
 */
public final class CanonicalForm {

  private CanonicalForm() {}

  public static String of(RuleSpec spec) {
    if (spec instanceof FlowRuleSpec f) {
      return "flow|"
          + f.resource()
          + "|"
          + f.regex()
          + "|"
          + f.origins().kind()
          + ":"
          + String.join(",", new TreeSet<>(f.origins().names()))
          + "|"
          + f.grade()
          + "|"
          + f.count()
          + "|"
          + f.strategy()
          + "|"
          + f.refResource()
          + "|"
          + f.controlBehavior()
          + "|"
          + f.warmUpPeriodSec()
          + "|"
          + f.maxQueueingTimeMs()
          + "|"
          + f.coldFactor()
          + "|"
          + f.clusterMode();
    }
    if (spec instanceof DegradeRuleSpec d) {
      return "degrade|"
          + d.resource()
          + "|"
          + d.grade()
          + "|"
          + d.count()
          + "|"
          + d.slowRatioThreshold()
          + "|"
          + d.openMillis()
          + "|"
          + d.minRequestAmount()
          + "|"
          + d.statIntervalMs()
          + "|"
          + d.probeCalls();
    }
    if (spec instanceof ParamFlowRuleSpec p) {
      List<String> items = new ArrayList<>();
      for (Map.Entry<Object, Long> e : p.exceptions().entrySet()) {
        items.add(e.getKey().getClass().getSimpleName() + ":" + e.getKey() + "=" + e.getValue());
      }
      items.sort(null);
      return "param|"
          + p.resource()
          + "|"
          + (p.source() == null ? p.paramIdx() : p.source().kind() + ":" + p.source().name())
          + "|"
          + p.count()
          + "|"
          + p.controlBehavior()
          + "|"
          + p.maxQueueingTimeMs()
          + "|"
          + p.burstCount()
          + "|"
          + p.durationInSec()
          + "|"
          + items;
    }
    if (spec instanceof SystemRuleSpec s) {
      return "system|"
          + s.highestSystemLoad()
          + "|"
          + s.highestCpuUsage()
          + "|"
          + s.qps()
          + "|"
          + s.avgRt()
          + "|"
          + s.maxThread();
    }
    AuthorityRuleSpec a = (AuthorityRuleSpec) spec;
    return "authority|"
        + a.resource()
        + "|"
        + a.whiteList()
        + "|"
        + String.join(",", new TreeSet<>(a.origins()));
  }
}
