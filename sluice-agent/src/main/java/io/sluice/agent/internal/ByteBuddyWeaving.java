package io.sluice.agent.internal;

import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;

import io.sluice.agent.bootstrap.SluiceHooks;
import io.sluice.agent.logging.AgentLog;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.util.List;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.scaffold.TypeValidation;
import net.bytebuddy.utility.JavaModule;

/**
 * Everything of the agent that names Byte Buddy, kept in one class so that a start whose woven
 * classes all come from the cache never loads it: building the agent builder loads and runs about a
 * thousand classes.
 */
final class ByteBuddyWeaving {
  private ByteBuddyWeaving() {}

  /** Byte Buddy's transformer for every instrumentation: loads Byte Buddy. */
  static ClassFileTransformer transformer(
      Instrumentation instrumentation,
      ClassLoader agentLoader,
      List<Compatibility> compatibilities,
      AgentLog log) {
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
            .with(new WeavingListener(log));
    for (Compatibility each : compatibilities) {
      AgentBuilder.Transformer.ForAdvice advice =
          new AgentBuilder.Transformer.ForAdvice().include(agentLoader);
      builder =
          builder
              .type(new InstrumentationMatcher(each))
              .transform(each.instrumentation().advice(advice));
    }
    return builder.makeRaw();
  }

  /** Logs what Byte Buddy wove, and a class it failed to weave (which then runs unwoven). */
  static final class WeavingListener extends AgentBuilder.Listener.Adapter {
    private final AgentLog log;

    WeavingListener(AgentLog log) {
      this.log = log;
    }

    @Override
    public void onTransformation(
        TypeDescription type,
        ClassLoader loader,
        JavaModule module,
        boolean loaded,
        net.bytebuddy.dynamic.DynamicType dynamicType) {
      log.debug("wove " + type.getName() + " in " + loader);
    }

    @Override
    public void onIgnored(
        TypeDescription type, ClassLoader loader, JavaModule module, boolean loaded) {
      log.debug(
          "did not weave " + type.getName() + " in " + loader + " (no instrumentation matched)");
    }

    @Override
    public void onError(
        String typeName, ClassLoader loader, JavaModule module, boolean loaded, Throwable error) {
      log.warn("could not weave " + typeName + " (left as is): " + error);
    }
  }
}
