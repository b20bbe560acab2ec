package io.sluice.agent.internal;

import io.sluice.agent.logging.AgentLog;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.IllegalClassFormatException;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The transformer the JVM calls for every class it loads (or retransforms). One hash lookup of the
 * class's name: only the few classes the instrumentations name go further. For those, the woven
 * form comes from the {@link WovenClassCache} when a previous run made it, else from Byte Buddy,
 * whose transformer is built only when first needed (and its result cached). Until it is built, a
 * class that needs it is left as it is and noted, to be retransformed once it is.
 *
 * <p>Cache keys are the class's original class file. A class being defined gives it as read; a
 * class retransformed gives the JVM's reconstitution of it, which differs, so then the original is
 * read again from the class's loader ({@code getResource}). Whether a class is loaded before or
 * after the agent, one run or the next, it finds the same entry.
 *
 * <p>Concurrency: called by any thread that loads a class; the Byte Buddy transformer is published
 * through a volatile field, the notes are concurrent sets and maps.
 */
final class WeavingTransformer implements ClassFileTransformer {
  private final Map<String, List<Compatibility>> byInternalName;
  private final WovenClassCache cache;
  private final Supplier<ClassFileTransformer> byteBuddy;
  private final Runnable onMiss;
  private final java.util.function.Consumer<Module> readEdge;
  private final AgentLog log;
  private final Set<String> woven = ConcurrentHashMap.newKeySet();
  private final Set<String> waiting = ConcurrentHashMap.newKeySet();
  private final Set<String> fromCache = ConcurrentHashMap.newKeySet();
  private volatile ClassFileTransformer weaver;

  /**
   * @param compatibilities every enabled instrumentation's compatibility check
   * @param cache where woven classes are kept between runs; null for none
   * @param byteBuddy builds Byte Buddy's transformer (loading Byte Buddy); called at most once
   * @param onMiss told when a class waits for Byte Buddy's transformer
   * @param readEdge makes a named module (the JDK's) read the bootstrap API's, which woven code
   *     calls; Byte Buddy does it for what it weaves, this for what comes from the cache
   */
  WeavingTransformer(
      List<Compatibility> compatibilities,
      WovenClassCache cache,
      Supplier<ClassFileTransformer> byteBuddy,
      Runnable onMiss,
      java.util.function.Consumer<Module> readEdge,
      AgentLog log) {
    Map<String, List<Compatibility>> names = new java.util.HashMap<>();
    for (Compatibility compatibility : compatibilities) {
      for (String name : compatibility.instrumentation().typeNames()) {
        names.computeIfAbsent(name.replace('.', '/'), n -> new ArrayList<>()).add(compatibility);
      }
    }
    this.byInternalName = Map.copyOf(names);
    this.cache = cache;
    this.byteBuddy = byteBuddy;
    this.onMiss = onMiss;
    this.readEdge = readEdge;
    this.log = log;
  }

  @Override
  public byte[] transform(
      Module module,
      ClassLoader loader,
      String internalName,
      Class<?> classBeingRedefined,
      ProtectionDomain protectionDomain,
      byte[] classfileBuffer)
      throws IllegalClassFormatException {
    try {
      return weave(
          module, loader, internalName, classBeingRedefined, protectionDomain, classfileBuffer);
    } catch (Throwable t) {
      // The JDK would drop it silently; the class then runs as it is.
      log.warn("could not weave " + internalName + " (left as is): " + t);
      return null;
    }
  }

  private byte[] weave(
      Module module,
      ClassLoader loader,
      String internalName,
      Class<?> classBeingRedefined,
      ProtectionDomain protectionDomain,
      byte[] classfileBuffer)
      throws IllegalClassFormatException {
    List<Compatibility> candidates = internalName == null ? null : byInternalName.get(internalName);
    if (candidates == null) {
      return null;
    }
    String className = internalName.replace('/', '.');
    String applied = applied(candidates, className, loader);
    if (applied.isEmpty()) {
      return null;
    }
    byte[] original =
        cache == null || classBeingRedefined == null
            ? classfileBuffer
            : originalOf(loader, internalName, classfileBuffer);
    if (cache != null) {
      byte[] cached = cache.get(className, applied, original);
      if (cached != null) {
        if (module != null && module.isNamed()) {
          readEdge.accept(module);
        }
        woven.add(className);
        fromCache.add(className);
        return cached;
      }
    }
    ClassFileTransformer transformer = weaver;
    if (transformer == null) {
      waiting.add(className);
      onMiss.run();
      return null;
    }
    byte[] out =
        transformer.transform(
            module, loader, internalName, classBeingRedefined, protectionDomain, classfileBuffer);
    if (out != null) {
      woven.add(className);
      waiting.remove(className);
      if (cache != null) {
        cache.put(className, applied, original, out);
      }
    }
    return out;
  }

  /** The class file as its loader serves it; {@code fallback} when it cannot be read. */
  private static byte[] originalOf(ClassLoader loader, String internalName, byte[] fallback) {
    String resource = internalName + ".class";
    try (java.io.InputStream in =
        loader == null
            ? ClassLoader.getSystemResourceAsStream(resource)
            : loader.getResourceAsStream(resource)) {
      return in == null ? fallback : in.readAllBytes();
    } catch (java.io.IOException | RuntimeException e) {
      return fallback;
    }
  }

  private static String applied(
      List<Compatibility> candidates, String className, ClassLoader loader) {
    StringBuilder names = new StringBuilder();
    for (Compatibility candidate : candidates) {
      if (candidate.appliesTo(className, loader)) {
        names.append(names.length() == 0 ? "" : ",").append(candidate.instrumentation().name());
      }
    }
    return names.toString();
  }

  /** Builds Byte Buddy's transformer if it is not built yet; true once it is. */
  synchronized boolean ensureByteBuddy() {
    if (weaver == null) {
      long before = System.nanoTime();
      weaver = byteBuddy.get();
      log.info("Byte Buddy ready in " + (System.nanoTime() - before) / 1_000_000 + " ms");
    }
    return true;
  }

  boolean byteBuddyReady() {
    return weaver != null;
  }

  /** Whether {@code internalName} is a class some instrumentation names. */
  boolean gates(String internalName) {
    return byInternalName.containsKey(internalName);
  }

  boolean woven(String className) {
    return woven.contains(className);
  }

  /** Classes left as they were because Byte Buddy was not ready; cleared. */
  Set<String> takeWaiting() {
    Set<String> taken = Set.copyOf(waiting);
    waiting.removeAll(taken);
    return taken;
  }

  boolean hasWaiting() {
    return !waiting.isEmpty();
  }

  int wovenFromCache() {
    return fromCache.size();
  }

  int wovenCount() {
    return woven.size();
  }
}
