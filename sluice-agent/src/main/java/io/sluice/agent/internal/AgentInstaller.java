package io.sluice.agent.internal;

import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;

import io.sluice.agent.bootstrap.SluiceHooks;
import io.sluice.agent.governance.FlowGovernor;
import io.sluice.agent.instrumentation.SluiceInstrumentation;
import io.sluice.agent.instrumentation.apachehttpclient5.ClassicClientInstrumentation;
import io.sluice.agent.instrumentation.executors.ExecutorsInstrumentation;
import io.sluice.agent.instrumentation.httpurlconnection.HttpUrlConnectionInstrumentation;
import io.sluice.agent.instrumentation.jdkhttpclient.HttpClientInstrumentation;
import io.sluice.agent.instrumentation.nacosclient2.NamingServiceInstrumentation;
import io.sluice.agent.instrumentation.okhttp4.RealCallInstrumentation;
import io.sluice.agent.instrumentation.reactornetty1.HttpServerInstrumentation;
import io.sluice.agent.instrumentation.servletjakarta.HttpServletInstrumentation;
import io.sluice.agent.instrumentation.springboot.SpringApplicationInstrumentation;
import io.sluice.agent.instrumentation.springcloudgateway4.FilteringWebHandlerInstrumentation;
import io.sluice.agent.instrumentation.springcloudloadbalancer4.LoadBalancerInstrumentation;
import io.sluice.agent.instrumentation.springweb6.ClientHttpRequestInstrumentation;
import io.sluice.agent.instrumentation.springwebflux6.ServerEntryInstrumentation;
import io.sluice.agent.instrumentation.springwebmvc6.HandlerAdapterInstrumentation;
import io.sluice.agent.logging.AgentLog;
import io.sluice.flow.FlowRegistry;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.scaffold.TypeValidation;
import net.bytebuddy.utility.JavaModule;

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
        new RealCallInstrumentation(),
        new ServerEntryInstrumentation(),
        new HttpServerInstrumentation(),
        new FilteringWebHandlerInstrumentation(),
        new LoadBalancerInstrumentation(),
        new NamingServiceInstrumentation(),
        new ExecutorsInstrumentation());
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
    Agent agent = new Agent(config, log, FlowRegistry.builder().build());
    FlowGovernor governor = agent.governor();
    SluiceHooks.install(governor);

    List<SluiceInstrumentation> enabled = new ArrayList<>();
    for (SluiceInstrumentation candidate : allInstrumentations()) {
      if (!config.disabledInstrumentations().contains(candidate.name())) {
        enabled.add(candidate);
      }
    }
    agent.startRules();
    // Weaving loads and runs Byte Buddy (about a thousand classes, interpreted at first). At
    // start-up it runs on the agent's own thread, beside the application's start instead of before
    // it; classes the application loads meanwhile are retransformed once the weaving is installed.
    // When attached, the application is already running: weave before returning, so the agent is
    // in force when the attach completes.
    if (attached) {
      weaveAndLog(instrumentation, agentLoader, enabled, log);
    }
    Thread agentThread =
        new Thread(
            () -> {
              if (attached || weaveAndLog(instrumentation, agentLoader, enabled, log)) {
                agent.runRules();
              }
            },
            "sluice-agent");
    agentThread.setDaemon(true);
    agentThread.start();

    long millis = (System.nanoTime() - startNanos) / 1_000_000;

    List<String> names = new ArrayList<>();
    enabled.forEach(i -> names.add(i.name()));
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

  private static boolean weaveAndLog(
      Instrumentation instrumentation,
      ClassLoader agentLoader,
      List<SluiceInstrumentation> enabled,
      AgentLog log) {
    long before = System.nanoTime();
    try {
      weave(instrumentation, agentLoader, enabled, log);
    } catch (Throwable t) {
      log.error("weaving failed; the application runs ungoverned", t);
      return false;
    }
    log.info("woven in " + (System.nanoTime() - before) / 1_000_000 + " ms");
    return true;
  }

  static void weave(
      Instrumentation instrumentation,
      ClassLoader agentLoader,
      List<SluiceInstrumentation> instrumentations,
      AgentLog log) {
    WeavingListener listener = new WeavingListener(log);
    AgentBuilder builder =
        new AgentBuilder.Default(new ByteBuddy().with(TypeValidation.DISABLED))
            // Advice only: no new members, so classes loaded before the agent can be retransformed.
            .disableClassFormatChanges()
            .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
            .with(AgentBuilder.TypeStrategy.Default.DECORATE)
            .with(AgentBuilder.PoolStrategy.Default.FAST)
            .with(AgentBuilder.DescriptionStrategy.Default.HYBRID)
            // Woven JDK classes (java.net.http, java.base) must read the bootstrap API's module.
            .assureReadEdgeTo(instrumentation, SluiceHooks.class)
            // Name-only matchers: anything else (modifiers, hierarchy) would make Byte Buddy parse
            // the class file of every class the application loads.
            .ignore(
                nameStartsWith("io.sluice.agent.")
                    .or(nameStartsWith("net.bytebuddy."))
                    .or(nameStartsWith("jdk.internal.reflect."))
                    .or(nameStartsWith("sun.reflect.")))
            .with(listener);
    Set<String> internalNames = new HashSet<>();
    for (SluiceInstrumentation each : instrumentations) {
      AgentBuilder.Transformer.ForAdvice advice =
          new AgentBuilder.Transformer.ForAdvice().include(agentLoader);
      builder = builder.type(new InstrumentationMatcher(each, log)).transform(each.advice(advice));
      each.typeNames().forEach(name -> internalNames.add(name.replace('.', '/')));
    }
    // Byte Buddy sees only the classes named by an instrumentation (see NameGatedTransformer);
    // those already loaded are retransformed here, one by one so one failure spares the rest. A
    // second pass catches targets loaded by this thread while it was inside a transformation
    // (Byte Buddy does not transform classes loaded from within its own transformer).
    NameGatedTransformer gate = new NameGatedTransformer(internalNames, builder.makeRaw());
    instrumentation.addTransformer(gate, true);
    for (int pass = 0; pass < 2; pass++) {
      for (Class<?> loaded : instrumentation.getAllLoadedClasses()) {
        if (gate.gates(loaded.getName().replace('.', '/'))
            && !listener.woven(loaded.getName())
            && instrumentation.isModifiableClass(loaded)) {
          try {
            instrumentation.retransformClasses(loaded);
          } catch (Throwable t) {
            log.warn("could not retransform " + loaded.getName() + " (left as is): " + t);
          }
        }
      }
    }
  }

  /** Remembers what was woven; logs a class the agent failed to weave (it then runs unwoven). */
  static final class WeavingListener extends AgentBuilder.Listener.Adapter {
    private final AgentLog log;
    private final Set<String> woven = java.util.concurrent.ConcurrentHashMap.newKeySet();

    WeavingListener(AgentLog log) {
      this.log = log;
    }

    boolean woven(String className) {
      return woven.contains(className);
    }

    @Override
    public void onTransformation(
        TypeDescription type,
        ClassLoader loader,
        JavaModule module,
        boolean loaded,
        net.bytebuddy.dynamic.DynamicType dynamicType) {
      woven.add(type.getName());
      log.debug("wove " + type.getName() + " in " + loader);
    }

    @Override
    public void onError(
        String typeName, ClassLoader loader, JavaModule module, boolean loaded, Throwable error) {
      log.warn("could not weave " + typeName + " (left as is): " + error);
    }
  }
}
