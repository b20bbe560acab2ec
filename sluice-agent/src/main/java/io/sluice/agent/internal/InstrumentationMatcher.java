package io.sluice.agent.internal;

import io.sluice.agent.instrumentation.SluiceInstrumentation;
import io.sluice.agent.logging.AgentLog;
import java.security.ProtectionDomain;
import java.util.Map;
import java.util.WeakHashMap;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.utility.JavaModule;

/**
 * Matches the classes one instrumentation weaves: the type by name first (a string comparison for
 * every class the JVM loads), then, only for a matching type, whether its class loader sees every
 * class the advice needs. The second answer is cached per class loader and a mismatch is logged
 * once, so an unsupported framework version is skipped, never woven blindly.
 */
final class InstrumentationMatcher implements AgentBuilder.RawMatcher {
  private final SluiceInstrumentation instrumentation;
  private final ElementMatcher<TypeDescription> typeMatcher;
  private final AgentLog log;
  // Weak keys: an application class loader that goes away takes its entry with it.
  private final Map<ClassLoader, Boolean> compatibleByLoader = new WeakHashMap<>();

  InstrumentationMatcher(SluiceInstrumentation instrumentation, AgentLog log) {
    this.instrumentation = instrumentation;
    this.typeMatcher = instrumentation.typeMatcher();
    this.log = log;
  }

  @Override
  public boolean matches(
      TypeDescription type,
      ClassLoader loader,
      JavaModule module,
      Class<?> classBeingRedefined,
      ProtectionDomain protectionDomain) {
    return typeMatcher.matches(type) && compatible(type, loader);
  }

  boolean compatible(TypeDescription type, ClassLoader loader) {
    if (instrumentation.requiredClasses().isEmpty()) {
      return true;
    }
    if (loader == null) {
      return false;
    }
    synchronized (compatibleByLoader) {
      Boolean known = compatibleByLoader.get(loader);
      if (known != null) {
        return known;
      }
      String missing = null;
      for (String required : instrumentation.requiredClasses()) {
        if (loader.getResource(required.replace('.', '/') + ".class") == null) {
          missing = required;
          break;
        }
      }
      if (missing != null) {
        log.info(
            "skipping "
                + instrumentation.name()
                + " for "
                + type.getName()
                + " in "
                + loader
                + ": unsupported version ("
                + missing
                + " not found)");
      }
      compatibleByLoader.put(loader, missing == null);
      return missing == null;
    }
  }
}
