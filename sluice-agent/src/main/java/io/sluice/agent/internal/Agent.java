package io.sluice.agent.internal;

import io.sluice.agent.governance.FlowGovernor;
import io.sluice.agent.governance.LaneGovernance;
import io.sluice.agent.logging.AgentLog;
import io.sluice.agent.reporting.TrafficReporter;
import io.sluice.agent.reporting.TrafficSender;
import io.sluice.agent.rules.RuleType;
import io.sluice.agent.rules.RuleWatcher;
import io.sluice.flow.FlowRegistry;
import java.time.Duration;
import java.util.List;

/**
 * The agent's root object: it owns the configuration, the log, the flow registry, the governor that
 * advice reaches through {@code SluiceHooks}, and the rule watcher. Nothing else in the agent is
 * static.
 *
 * <p>The cached rules are applied as soon as the application name is known: at once when
 * configured, else when Spring Boot has prepared its Environment (on the thread that learns it).
 * The rule watcher then runs on the agent's one thread, after the weaving. Without a name or a
 * config center the application runs with whatever rules the cache held, or none.
 */
final class Agent {
  private final AgentConfig config;
  private final AgentLog log;
  private final FlowGovernor governor;
  private final FlowRegistry registry;
  private final Object lock = new Object();
  private String applicationName; // guarded by lock
  private RuleWatcher watcher; // guarded by lock; set once, then run by the agent thread

  Agent(AgentConfig config, AgentLog log, FlowRegistry registry) {
    this.config = config;
    this.log = log;
    this.registry = registry;
    this.governor =
        new FlowGovernor(
            registry,
            FlowGovernor.verdicts(
                config.flowBlockStatus(), config.degradeBlockStatus(), config.retryAfterSeconds()),
            this::onSpringApplicationName,
            new LaneGovernance(config.lane(), log),
            log);
    if (config.lane() != null) {
      log.info(
          "this instance is in lane '"
              + config.lane()
              + "' (from "
              + config.sourceOf(AgentConfig.LANE)
              + "); registrations through nacos-client carry it as metadata sluice.lane");
    }
  }

  FlowGovernor governor() {
    return governor;
  }

  /** Starts watching rules if the configuration names the application. */
  void startRules() {
    String configured = config.applicationName();
    if (configured != null) {
      startRulesFor(configured, config.sourceOf(AgentConfig.APP_NAME));
    } else {
      log.info("no application name configured; waiting for spring.application.name");
    }
  }

  private boolean missingNameReported; // guarded by lock

  private void onSpringApplicationName(String name) {
    if (name == null || name.isBlank()) {
      synchronized (lock) {
        if (applicationName == null && !missingNameReported) {
          missingNameReported = true;
          log.warn(
              "spring.application.name is not set and sluice.app.name is not configured;"
                  + " rules from the config center are off");
        }
      }
      return;
    }
    startRulesFor(name.trim(), "spring.application.name");
  }

  private void startRulesFor(String name, String source) {
    synchronized (lock) {
      if (applicationName != null) {
        return;
      }
      applicationName = name;
      governor.applicationNamed(name);
      List<String> servers = config.serverAddresses();
      if (servers.isEmpty()) {
        log.warn(
            "application '"
                + name
                + "' (from "
                + source
                + "): no config center address (sluice.server.addr); rules are off");
        return;
      }
      watcher =
          RuleWatcher.forApplication(
              name,
              servers,
              config.credentials(),
              config.namespace(),
              List.of(RuleType.values()),
              governor,
              config.cacheDirectory(),
              Duration.ofMillis(config.listenHoldMillis()),
              log);
      watcher.applyCached();
      lock.notifyAll();
      startTrafficReports(name, servers);
      log.info(
          "watching rules of application '"
              + name
              + "' (from "
              + source
              + ") at "
              + servers
              + " namespace '"
              + config.namespace()
              + "'");
    }
  }

  /**
   * Sends each second's statistics to the server on a thread of its own, unless turned off. Called
   * once, under the lock, when the application's name is known.
   */
  private void startTrafficReports(String name, List<String> servers) {
    if (!config.trafficReport()) {
      log.info("traffic reports to the server are off (" + AgentConfig.TRAFFIC_REPORT + "=false)");
      return;
    }
    TrafficReporter reporter =
        new TrafficReporter(
            name,
            ProcessHandle.current().pid() + "@" + hostName(),
            config.lane(),
            registry,
            governor::resourcesSeen,
            governor::resourcesSeenCount,
            new TrafficSender(servers, config.credentials()),
            System::currentTimeMillis,
            config.trafficReportSeconds(),
            log);
    java.util.concurrent.ScheduledExecutorService thread =
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread t = new Thread(runnable, "sluice-agent-traffic");
              t.setDaemon(true);
              return t;
            });
    // Just after each second of the registry's clock, when its last second is complete.
    long delay = 1_000 - registry.clockNanos() / 1_000_000 % 1_000 + 50;
    thread.scheduleAtFixedRate(
        reporter::tick, delay, 1_000, java.util.concurrent.TimeUnit.MILLISECONDS);
    log.info(
        "reporting each second's traffic to "
            + servers
            + ", every "
            + config.trafficReportSeconds()
            + " s ("
            + AgentConfig.TRAFFIC_REPORT_SECONDS
            + ")"
            + (config.trafficAllResources()
                ? " for every resource"
                : " for resources with a rule ("
                    + AgentConfig.TRAFFIC_ALL_RESOURCES
                    + "=true: all)"));
  }

  private static String hostName() {
    String host = System.getenv("HOSTNAME");
    if (host == null || host.isBlank()) {
      host = System.getenv("COMPUTERNAME");
    }
    return host == null || host.isBlank() ? "localhost" : host.trim();
  }

  /**
   * Runs the rule watcher on the calling thread (the agent thread), once the application name is
   * known; returns only if the thread is interrupted.
   */
  void runRules() {
    RuleWatcher toRun;
    synchronized (lock) {
      while (watcher == null) {
        try {
          lock.wait();
        } catch (InterruptedException e) {
          return;
        }
      }
      toRun = watcher;
    }
    toRun.run();
  }

  String describeRules() {
    String name = config.applicationName();
    String where =
        config.serverAddresses().isEmpty()
            ? "no config center"
            : "config center " + String.join(",", config.serverAddresses());
    return (name != null ? "rules of '" + name + "'" : "rules of spring.application.name")
        + " from "
        + where;
  }
}
