package io.sluice.agent.internal;

import io.sluice.agent.bootstrap.SluiceHooks;
import io.sluice.agent.instrumentation.SluiceInstrumentation;
import io.sluice.agent.logging.AgentLog;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The agent's weaving: a {@link WeavingTransformer} installed at once (it loads no Byte Buddy), so
 * classes loaded from then on are woven as they are defined, from the {@link WovenClassCache} where
 * an earlier run left their woven form; then, on the agent thread, the classes loaded before are
 * retransformed. Byte Buddy is loaded only when a class needs it: during that pass, or after it on
 * a thread of its own ({@code sluice-weaver}) for a class first loaded later, which runs unwoven
 * until then, so no application thread ever waits for Byte Buddy.
 */
final class Weaving {
  static final int MAX_PASSES = 5;

  private final Instrumentation instrumentation;
  private final WeavingTransformer transformer;
  private final WovenClassCache cache;
  private final AgentLog log;
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean lateWeaver = new AtomicBoolean();

  private Weaving(
      Instrumentation instrumentation,
      ClassLoader agentLoader,
      List<SluiceInstrumentation> instrumentations,
      WovenClassCache cache,
      AgentLog log) {
    this.instrumentation = instrumentation;
    this.cache = cache;
    this.log = log;
    List<Compatibility> compatibilities = new ArrayList<>();
    for (SluiceInstrumentation each : instrumentations) {
      compatibilities.add(new Compatibility(each, log));
    }
    Module bootstrapApi = SluiceHooks.class.getModule();
    this.transformer =
        new WeavingTransformer(
            compatibilities,
            cache,
            () -> ByteBuddyWeaving.transformer(instrumentation, agentLoader, compatibilities, log),
            this::onMiss,
            module -> {
              if (!module.canRead(bootstrapApi)) {
                instrumentation.redefineModule(
                    module, Set.of(bootstrapApi), Map.of(), Map.of(), Set.of(), Map.of());
              }
            },
            log);
  }

  /** Installs the transformer; {@code cache} may be null (no cache). */
  static Weaving install(
      Instrumentation instrumentation,
      ClassLoader agentLoader,
      List<SluiceInstrumentation> instrumentations,
      WovenClassCache cache,
      AgentLog log) {
    Weaving weaving = new Weaving(instrumentation, agentLoader, instrumentations, cache, log);
    instrumentation.addTransformer(weaving.transformer, true);
    return weaving;
  }

  /**
   * Weaves the classes loaded before the transformer, one by one so one failure spares the rest,
   * loading Byte Buddy if any of them (or any class loaded meanwhile) is not in the cache. Passes
   * repeat until one finds nothing new: a class loaded by this thread while it is inside a
   * transformation (Byte Buddy resolving a woven class's signatures loads the types they name)
   * never reaches the transformer (the JDK does not re-enter an agent's transformers on one
   * thread), so only a later pass weaves it.
   */
  void weaveLoaded() {
    Set<Class<?>> tried = new java.util.HashSet<>();
    for (int pass = 0; pass < MAX_PASSES; pass++) {
      boolean found = false;
      for (Class<?> loaded : instrumentation.getAllLoadedClasses()) {
        if (transformer.gates(loaded.getName().replace('.', '/'))
            && !transformer.woven(loaded.getName())
            && !tried.contains(loaded)
            && instrumentation.isModifiableClass(loaded)) {
          found = true;
          if (transformer.byteBuddyReady()) {
            tried.add(loaded); // woven or not, Byte Buddy has had its say
          }
          retransform(loaded);
        }
      }
      if (transformer.hasWaiting()) {
        transformer.ensureByteBuddy();
        transformer.takeWaiting();
      } else if (!found) {
        break;
      }
    }
    started.set(true);
    if (transformer.hasWaiting() && lateWeaver.compareAndSet(false, true)) {
      weaveWaiting();
    }
  }

  String describe() {
    return transformer.wovenCount()
        + " classes woven, "
        + transformer.wovenFromCache()
        + " from the cache"
        + (cache == null ? " (off)" : " (" + cache.directory() + ")")
        + (transformer.byteBuddyReady() ? "" : "; Byte Buddy not loaded");
  }

  /**
   * After the start, a class no cached form covers waits for Byte Buddy: weave it on a thread of
   * its own, so the thread that loads it never waits.
   */
  private void onMiss() {
    if (started.get() && lateWeaver.compareAndSet(false, true)) {
      Thread weaver = new Thread(this::weaveWaiting, "sluice-weaver");
      weaver.setDaemon(true);
      weaver.start();
    }
  }

  /** Loads Byte Buddy if needed and retransforms the classes that waited for it. */
  private void weaveWaiting() {
    try {
      transformer.ensureByteBuddy();
      Set<String> waiting = transformer.takeWaiting();
      for (Class<?> loaded : instrumentation.getAllLoadedClasses()) {
        if (waiting.contains(loaded.getName()) && instrumentation.isModifiableClass(loaded)) {
          retransform(loaded);
        }
      }
      log.info("wove " + waiting + " once Byte Buddy was ready");
    } catch (Throwable t) {
      log.error("weaving failed; classes loaded from now on may run ungoverned", t);
    }
  }

  private void retransform(Class<?> loaded) {
    try {
      instrumentation.retransformClasses(loaded);
    } catch (Throwable t) {
      log.warn("could not retransform " + loaded.getName() + " (left as is): " + t);
    }
  }
}
