package io.sluice.agent.internal;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.IllegalClassFormatException;
import java.security.ProtectionDomain;
import java.util.Set;

/**
 * The transformer the JVM calls for every class it loads: one hash lookup of the class's name, and
 * only for the few classes the instrumentations name does it hand over to Byte Buddy's transformer.
 * Byte Buddy's own per-class work (type description, ignore and type matchers, circularity lock)
 * would otherwise run for each of the application's thousands of classes while it starts.
 */
final class NameGatedTransformer implements ClassFileTransformer {
  private final Set<String> internalNames;
  private final ClassFileTransformer woven;

  /**
   * @param internalNames the classes to weave, in internal form ({@code java/util/Foo$Bar})
   */
  NameGatedTransformer(Set<String> internalNames, ClassFileTransformer woven) {
    this.internalNames = Set.copyOf(internalNames);
    this.woven = woven;
  }

  @Override
  public byte[] transform(
      Module module,
      ClassLoader loader,
      String className,
      Class<?> classBeingRedefined,
      ProtectionDomain protectionDomain,
      byte[] classfileBuffer)
      throws IllegalClassFormatException {
    if (className == null || !internalNames.contains(className)) {
      return null;
    }
    return woven.transform(
        module, loader, className, classBeingRedefined, protectionDomain, classfileBuffer);
  }

  boolean gates(String internalName) {
    return internalNames.contains(internalName);
  }
}
