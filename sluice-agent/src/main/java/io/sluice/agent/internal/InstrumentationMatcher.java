package io.sluice.agent.internal;

import java.security.ProtectionDomain;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.utility.JavaModule;

/**
 * Matches the classes one instrumentation weaves, for Byte Buddy: the type by name first (a string
 * comparison), then, only for a matching type, whether its class loader sees every class the advice
 * needs ({@link Compatibility}, cached per loader, a mismatch logged once).
 */
final class InstrumentationMatcher implements AgentBuilder.RawMatcher {
  private final Compatibility compatibility;
  private final ElementMatcher<TypeDescription> typeMatcher;

  InstrumentationMatcher(Compatibility compatibility) {
    this.compatibility = compatibility;
    this.typeMatcher = compatibility.instrumentation().typeMatcher();
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
    return compatibility.compatible(type.getName(), loader);
  }
}
