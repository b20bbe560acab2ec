package io.sluice.agent.governance;

import io.sluice.agent.logging.AgentLog;
import io.sluice.flow.RuleInfo;
import io.sluice.flow.RuleKind;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Says, once per rule, whether it can take effect where this application calls its resource, and
 * why not: no call to the resource seen so far (with the naming rule, since a wrong name is the
 * usual cause), a path that cannot offer what the rule reads (arguments, request attributes), a
 * caller name only governed callers send, an entrance not seen yet. A rule waiting for its resource
 * is reported again, once, when the first call comes.
 *
 * <p>Concurrency: rule lists are replaced whole under {@code this}; the resources seen are a
 * concurrent map updated once per new (name, path) by whichever thread resolves it first. Nothing
 * here runs per call.
 */
final class RuleEffects {
  static final int MAX_STATEMENTS = 10_000;
  private static final int MAX_SEEN = 20_000;

  private final AgentLog log;
  private final Supplier<Set<String>> callersSeen;
  private final ConcurrentHashMap<String, Integer> seen = new ConcurrentHashMap<>();
  private final Map<RuleKind, List<RuleInfo>> rules = new EnumMap<>(RuleKind.class);
  // Statements already logged, so each is logged once; bounded.
  private final Set<String> logged = ConcurrentHashMap.newKeySet();
  private volatile boolean waitingRules;

  /**
   * @param callersSeen the caller names (origins) requests have carried so far, for the log
   */
  RuleEffects(AgentLog log, Supplier<Set<String>> callersSeen) {
    this.log = log;
    this.callersSeen = callersSeen;
  }

  /** How many resources were resolved so far (what {@link #resourcesSeen()} lists). */
  int resourcesSeenCount() {
    return seen.size();
  }

  /**
   * Every resource resolved so far, name to the call sites it was seen at ("Spring MVC route",
   * "HTTP client call and WebClient call"), at most {@value #MAX_SEEN}; a copy.
   */
  Map<String, String> resourcesSeen() {
    Map<String, String> out = new java.util.TreeMap<>();
    seen.forEach(
        (name, paths) -> {
          StringBuilder kinds = new StringBuilder();
          for (CallPath path : CallPath.values()) {
            if ((paths & path.bit()) != 0) {
              kinds.append(kinds.length() == 0 ? "" : " and ").append(path.description);
            }
          }
          out.put(name, kinds.toString());
        });
    return out;
  }

  /** A resource was resolved on {@code path} for the first time. */
  void resourceSeen(String name, CallPath path) {
    if (seen.size() >= MAX_SEEN && !seen.containsKey(name)) {
      return;
    }
    Integer before = seen.get(name);
    int paths = before == null ? path.bit() : before | path.bit();
    if (before != null && before == paths) {
      return;
    }
    seen.merge(name, path.bit(), (a, b) -> a | b);
    if (waitingRules) {
      List<RuleInfo> affected = new ArrayList<>();
      synchronized (this) {
        for (List<RuleInfo> list : rules.values()) {
          for (RuleInfo rule : list) {
            if (applies(rule, name)) {
              affected.add(rule);
            }
          }
        }
      }
      for (RuleInfo rule : affected) {
        report(rule, "first call to " + name + " (" + path.description + ")");
      }
    }
  }

  /** The rules of {@code kind} now in force; reports each rule not reported before. */
  void rulesApplied(RuleKind kind, List<RuleInfo> loaded) {
    synchronized (this) {
      rules.put(kind, List.copyOf(loaded));
      boolean waiting = false;
      for (List<RuleInfo> list : rules.values()) {
        for (RuleInfo rule : list) {
          waiting |= rule.resource() != null && pathsOf(rule) == 0;
        }
      }
      waitingRules = waiting;
    }
    for (RuleInfo rule : loaded) {
      report(rule, null);
    }
  }

  /**
   * A deferred call's handler method was first invoked: a rule that names an argument the method
   * does not have can never limit it.
   */
  void argumentsSeen(GovernedResource resource, int count) {
    List<RuleInfo> params;
    synchronized (this) {
      params = rules.getOrDefault(RuleKind.PARAM_FLOW, List.of());
    }
    for (RuleInfo rule : params) {
      Integer index = rule.paramIdx();
      if (index == null || !resource.name.equals(rule.resource())) {
        continue;
      }
      int effective = index < 0 ? count + index : index;
      if (effective < 0 || effective >= count) {
        once(
            AgentLog.Level.WARN,
            rule.description()
                + ": cannot take effect on "
                + resource
                + ": its handler method takes "
                + count
                + " argument"
                + (count == 1 ? "" : "s")
                + ", so there is no argument "
                + index);
      }
    }
  }

  /** Reports the fallbacks now in force, each with whether its resource has been seen. */
  private static final int DUBBO_PATHS =
      CallPath.DUBBO_PROVIDER.bit() | CallPath.DUBBO_CONSUMER.bit();

  void fallbacksApplied(Fallbacks fallbacks) {
    for (String description : fallbacks.descriptions()) {
      String resource = description.substring(0, description.indexOf(" when refused by "));
      Integer paths = seen.get(resource);
      once(
          AgentLog.Level.INFO,
          "fallback for "
              + description
              + (paths == null
                  ? " (no call to " + resource + " seen yet; it applies from the first one)"
                  : " (" + describe(paths) + ")")
              + (paths != null && (paths & DUBBO_PATHS) != 0
                  ? "; not for Dubbo calls, which fail with an RpcException when refused"
                  : ""));
    }
  }

  private void report(RuleInfo rule, String trigger) {
    int paths = pathsOf(rule);
    List<String> notes = new ArrayList<>();
    AgentLog.Level level = AgentLog.Level.INFO;
    String verdict;
    if (rule.kind() == RuleKind.SYSTEM) {
      verdict = "in effect on every inbound call (routes, gateway routes, Dubbo provider methods)";
    } else if (paths == 0) {
      verdict =
          "waits for its resource: no call to "
              + (rule.regex() ? "a resource matching " : "")
              + "'"
              + rule.resource()
              + "' seen so far (Spring MVC and WebFlux routes are named 'METHOD /pattern', gateway"
              + " routes by route id, client calls 'METHOD host:port/path', or 'METHOD"
              + " service/path' through a load balancer, Dubbo calls 'interface:method(types)' or"
              + " 'interface'); it applies from the first such call";
    } else {
      verdict =
          "in effect on " + describe(paths) + (trigger == null ? "" : " since the " + trigger);
      List<String> cannot = cannotTakeEffect(rule, paths);
      if (!cannot.isEmpty()) {
        level = AgentLog.Level.WARN;
        verdict =
            (cannot.size() == pathCount(paths) ? "cannot take effect: " : "partly in effect: ")
                + String.join("; ", cannot)
                + (cannot.size() == pathCount(paths) ? "" : " (in effect elsewhere)");
      }
    }
    notes(rule, paths, notes);
    once(
        level,
        rule.description()
            + ": "
            + verdict
            + (notes.isEmpty() ? "" : ". " + String.join(". ", notes)));
  }

  /** Why the rule cannot act on each path it was seen on; empty when it can everywhere. */
  private static List<String> cannotTakeEffect(RuleInfo rule, int paths) {
    List<String> reasons = new ArrayList<>();
    for (CallPath path : CallPath.values()) {
      if ((paths & path.bit()) == 0) {
        continue;
      }
      if (rule.kind() == RuleKind.PARAM_FLOW) {
        if (rule.paramIdx() != null && !path.arguments) {
          reasons.add(
              "a "
                  + path.description
                  + " has no method arguments to take paramIdx "
                  + rule.paramIdx()
                  + " from (name a header, query parameter or cookie with paramSource instead)");
        } else if (rule.paramSource() != null && !path.requestAttributes) {
          reasons.add(
              "a "
                  + path.description
                  + " has no inbound request to read the "
                  + rule.paramSource()
                  + " from (paramSource applies to routes)");
        }
      }
    }
    return reasons;
  }

  private void notes(RuleInfo rule, int paths, List<String> notes) {
    if (!rule.namedOrigins().isEmpty() || "other".equals(rule.limitApp())) {
      Set<String> callers = new TreeSet<>(callersSeen.get());
      notes.add(
          "It applies to callers by name: governed applications send theirs as x-sluice-origin"
              + " (Sentinel's S-user is read too); calls without one "
              + (rule.kind() == RuleKind.AUTHORITY ? "pass it" : "are not limited by it")
              + "; callers seen so far: "
              + (callers.isEmpty() ? "none" : String.join(", ", callers)));
    }
    if (rule.strategy() == RuleInfo.Strategy.CHAIN) {
      notes.add(
          "It applies only to calls made while serving '"
              + rule.refResource()
              + "'"
              + (seen.containsKey(rule.refResource()) ? "" : ", which has not been called so far"));
    } else if (rule.strategy() == RuleInfo.Strategy.RELATE
        && !seen.containsKey(rule.refResource())) {
      notes.add("Its related resource '" + rule.refResource() + "' has not been called so far");
    }
    if (rule.paced()) {
      boolean blocking = false;
      boolean reactive = false;
      for (CallPath path : CallPath.values()) {
        if ((paths & path.bit()) != 0) {
          blocking |= path.blocking;
          reactive |= !path.blocking;
        }
      }
      if (blocking) {
        notes.add("Paced calls wait on their own thread, at most maxQueueingTimeMs");
      }
      if (reactive) {
        notes.add(
            "Paced calls on reactive paths are delayed on a timer without blocking the event loop");
      }
    }
    if (rule.clusterMode()) {
      notes.add("clusterMode is enforced locally with the rule's count (no token server)");
    }
  }

  private void once(AgentLog.Level level, String statement) {
    if (logged.size() >= MAX_STATEMENTS) {
      logged.clear();
    }
    if (!logged.add(statement)) {
      return;
    }
    if (level == AgentLog.Level.WARN) {
      log.warn(statement);
    } else {
      log.info(statement);
    }
  }

  /** The paths the rule's resource (or, for a regex rule, any matching resource) was seen on. */
  private int pathsOf(RuleInfo rule) {
    if (rule.resource() == null) {
      return 0;
    }
    if (!rule.regex()) {
      Integer paths = seen.get(rule.resource());
      return paths == null ? 0 : paths;
    }
    Pattern pattern = Pattern.compile(rule.resource());
    int paths = 0;
    for (Map.Entry<String, Integer> entry : seen.entrySet()) {
      if (pattern.matcher(entry.getKey()).matches()) {
        paths |= entry.getValue();
      }
    }
    return paths;
  }

  private static boolean applies(RuleInfo rule, String name) {
    if (rule.resource() == null) {
      return false;
    }
    return rule.regex() ? Pattern.matches(rule.resource(), name) : rule.resource().equals(name);
  }

  private static String describe(int paths) {
    Set<String> names = new LinkedHashSet<>();
    for (CallPath path : CallPath.values()) {
      if ((paths & path.bit()) != 0) {
        names.add("a " + path.description);
      }
    }
    return String.join(" and ", names);
  }

  private static int pathCount(int paths) {
    return Integer.bitCount(paths);
  }
}
