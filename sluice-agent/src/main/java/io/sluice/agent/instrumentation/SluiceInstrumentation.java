package io.sluice.agent.instrumentation;

import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.matcher.ElementMatchers;

/**
 * One instrumentation: which classes to weave, which advice to apply to which methods, and the
 * classes that must be visible to the woven class's loader for the advice to link (a cheap check in
 * the spirit of OpenTelemetry's muzzle: when one is missing, the instrumentation is skipped for
 * that class loader with one log line instead of being applied blindly).
 *
 * <p>Types are named exactly, so the agent decides with one hash lookup per loaded class whether
 * Byte Buddy needs to see it at all, and never walks a hierarchy. Advice is referenced by class
 * name: the agent never loads advice classes, whose signatures name framework types its loader
 * cannot see.
 */
public interface SluiceInstrumentation {
  /** A short name, by framework and oldest supported version, e.g. {@code spring-webmvc-6.0}. */
  String name();

  /**
   * Whether the instrumentation is off unless configured on ({@code instrumentation.enabled}),
   * because it can cost or change more than an application expects.
   */
  default boolean optIn() {
    return false;
  }

  /** The classes to weave, by exact binary name. */
  List<String> typeNames();

  /** {@link #typeNames()} as a matcher. */
  default ElementMatcher<TypeDescription> typeMatcher() {
    return ElementMatchers.namedOneOf(typeNames().toArray(new String[0]));
  }

  /**
   * Classes (binary names) the woven class's loader must see for the advice to work; checked once
   * per class loader. Empty for JDK classes.
   */
  List<String> requiredClasses();

  /**
   * The framework versions supported, for the line that says a loader was skipped (e.g. {@code
   * Apache Dubbo 3.2 and 3.3}); null when {@link #name()} says enough.
   */
  default String supportedVersions() {
    return null;
  }

  /** Adds this instrumentation's advice to {@code transformer}. */
  AgentBuilder.Transformer.ForAdvice advice(AgentBuilder.Transformer.ForAdvice transformer);
}
