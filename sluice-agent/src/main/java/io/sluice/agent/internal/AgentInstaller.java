package io.sluice.agent.internal;

import io.sluice.agent.bootstrap.SluiceHooks;
import io.sluice.agent.governance.BreakerLog;
import io.sluice.agent.governance.FlowGovernor;
import io.sluice.agent.instrumentation.SluiceInstrumentation;
import io.sluice.agent.instrumentation.apachehttpclient5.AsyncClientInstrumentation;
import io.sluice.agent.instrumentation.apachehttpclient5.ClassicClientInstrumentation;
import io.sluice.agent.instrumentation.dubbo3.DubboInstrumentation;
import io.sluice.agent.instrumentation.executors.ExecutorsInstrumentation;
import io.sluice.agent.instrumentation.executors.NewThreadInstrumentation;
import io.sluice.agent.instrumentation.httpurlconnection.HttpUrlConnectionInstrumentation;
import io.sluice.agent.instrumentation.jdkhttpclient.HttpClientInstrumentation;
import io.sluice.agent.instrumentation.nacosclient2.NamingServiceInstrumentation;
import io.sluice.agent.instrumentation.okhttp4.RealCallInstrumentation;
import io.sluice.agent.instrumentation.reactornetty1.HttpServerInstrumentation;
import io.sluice.agent.instrumentation.servletjakarta.HttpServletInstrumentation;
import io.sluice.agent.instrumentation.springboot.SpringApplicationInstrumentation;
import io.sluice.agent.instrumentation.springcloudgateway4.FilteringWebHandlerInstrumentation;
import io.sluice.agent.instrumentation.springcloudloadbalancer4.LoadBalancerInstrumentation;
import io.sluice.agent.instrumentation.springcloudopenfeign4.LoadBalancedFeignInstrumentation;
import io.sluice.agent.instrumentation.springweb6.ClientHttpRequestInstrumentation;
import io.sluice.agent.instrumentation.springwebflux6.ServerEntryInstrumentation;
import io.sluice.agent.instrumentation.springwebmvc6.HandlerAdapterInstrumentation;
import io.sluice.agent.logging.AgentLog;
import io.sluice.agent.reporting.MetricsEndpoint;
import io.sluice.flow.FlowRegistry;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Installs the agent, called once by {@code SluiceAgent} inside the agent class loader: resolves
 * the configuration, opens the log, builds the one {@link Agent} root, publishes its hooks for
 * advice and weaves the instrumentations. Prints one line saying what it did.
 */
public final class AgentInstaller {
  static final String VERSION = "0.1.0";

  private AgentInstaller() {}

  /** The instrumentations this agent has, in the order they are listed at start. */
  public static List<SluiceInstrumentation> allInstrumentations() {
    return List.of(
        new HttpServletInstrumentation(),
        new HandlerAdapterInstrumentation(),
        new SpringApplicationInstrumentation(),
        new ClientHttpRequestInstrumentation(),
        new HttpClientInstrumentation(),
        new HttpUrlConnectionInstrumentation(),
        new ClassicClientInstrumentation(),
        new AsyncClientInstrumentation(),
        new io.sluice.agent.instrumentation.apachehttpclient4.ClassicClientInstrumentation(),
        new RealCallInstrumentation(),
        new ServerEntryInstrumentation(),
        new HttpServerInstrumentation(),
        new FilteringWebHandlerInstrumentation(),
        new LoadBalancerInstrumentation(),
        new LoadBalancedFeignInstrumentation(),
        new NamingServiceInstrumentation(),
        new DubboInstrumentation(),
        new ExecutorsInstrumentation(),
        new NewThreadInstrumentation());
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static void install(
      String agentArgs,
      Instrumentation instrumentation,
      ClassLoader agentLoader,
      boolean attached,
      long startNanos) {
    AgentConfig config =
        AgentConfig.resolve(agentArgs, (Map) System.getProperties(), System.getenv());
    if (!config.enabled()) {
      System.err.println("[sluice-agent] disabled by configuration (enabled=false)");
      return;
    }
    AgentLog log =
        AgentLog.toFile(
            config.logDirectory().resolve("sluice-agent-" + ProcessHandle.current().pid() + ".log"),
            AgentLog.Level.parse(config.logLevel()));
    FlowRegistry registry =
        FlowRegistry.builder()
            .breakerListener(new BreakerLog(log, System::nanoTime))
            .statisticsForAllResources(config.trafficAllResources())
            .build();
    Agent agent = new Agent(config, log, registry);
    startMetricsEndpoint(config, registry, log);
    FlowGovernor governor = agent.governor();
    SluiceHooks.install(governor);

    List<SluiceInstrumentation> enabled = new ArrayList<>();
    for (SluiceInstrumentation candidate : allInstrumentations()) {
      boolean wanted =
          candidate.optIn()
              ? config.enabledInstrumentations().contains(candidate.name())
              : !config.disabledInstrumentations().contains(candidate.name());
      if (wanted) {
        enabled.add(candidate);
      }
    }
    agent.startRules();
    // Weaving takes the woven classes of earlier runs from the cache, and loads and runs Byte Buddy
    // (about a thousand classes, interpreted at first) only for classes the cache lacks. At
    // start-up it runs on the agent's own thread, beside the application's start instead of before
    // it; classes the application loads meanwhile are retransformed once the weaving is installed.
    // When attached, the application is already running: weave before returning, so the agent is
    // in force when the attach completes.
    WovenClassCache cache =
        config.weaveCache()
            ? WovenClassCache.open(
                config.cacheDirectory().resolve("woven"),
                WovenClassCache.agentKey(agentJar(), VERSION, names(enabled).toString()),
                log)
            : null;
    // The transformer goes in now (it loads no Byte Buddy), so classes the application loads from
    // here on are woven from the cache as they are defined; classes loaded before are
    // retransformed by the weaving.
    Weaving weaving = Weaving.install(instrumentation, agentLoader, enabled, cache, log);
    if (attached) {
      weaveAndLog(weaving, log);
    }
    Thread agentThread =
        new Thread(
            () -> {
              if (attached || weaveAndLog(weaving, log)) {
                agent.runRules();
              }
            },
            "sluice-agent");
    agentThread.setDaemon(true);
    agentThread.start();

    long millis = (System.nanoTime() - startNanos) / 1_000_000;

    List<String> names = names(enabled);
    String line =
        "[sluice-agent] "
            + VERSION
            + (attached ? " attached" : " started")
            + " in "
            + millis
            + " ms: instrumenting "
            + String.join(", ", names)
            + "; "
            + agent.describeRules()
            + "; log "
            + log.where();
    System.err.println(line);
    log.info(line + " (pid " + ProcessHandle.current().pid() + ")");
  }

  /** The opt-in Prometheus endpoint; a port that cannot be bound is logged, never fatal. */
  private static void startMetricsEndpoint(
      AgentConfig config, FlowRegistry registry, AgentLog log) {
    int port = config.metricsPort();
    if (port == 0) {
      return;
    }
    try {
      MetricsEndpoint endpoint = MetricsEndpoint.start(port, registry);
      log.info(
          "per-resource metrics for Prometheus at http://127.0.0.1:"
              + endpoint.port()
              + MetricsEndpoint.PATH
              + " (from "
              + config.sourceOf(AgentConfig.METRICS_PORT)
              + ")");
    } catch (java.io.IOException | RuntimeException | LinkageError e) {
      log.warn(
          "no metrics endpoint on 127.0.0.1:" + port + " (" + e + "); the application runs on");
    }
  }

  private static List<String> names(List<SluiceInstrumentation> instrumentations) {
    List<String> names = new ArrayList<>();
    instrumentations.forEach(i -> names.add(i.name()));
    return names;
  }

  /** The agent jar, which holds this class (under {@code inst/}). */
  private static java.nio.file.Path agentJar() {
    try {
      return java.nio.file.Path.of(
          AgentInstaller.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (java.net.URISyntaxException | RuntimeException e) {
      return java.nio.file.Path.of("sluice-agent.jar");
    }
  }

  private static boolean weaveAndLog(Weaving weaving, AgentLog log) {
    long before = System.nanoTime();
    try {
      weaving.weaveLoaded();
    } catch (Throwable t) {
      log.error("weaving failed; the application runs ungoverned", t);
      return false;
    }
    log.info("woven in " + (System.nanoTime() - before) / 1_000_000 + " ms: " + weaving.describe());
    return true;
  }
}
