package io.sluice.agent.internal;

import io.sluice.agent.instrumentation.SluiceInstrumentation;
import io.sluice.agent.logging.AgentLog;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Whether an instrumentation may be applied to a class in a given class loader: the loader must see
 * every class the advice needs (a cheap check in the spirit of OpenTelemetry's muzzle). The answer
 * is cached per class loader and a mismatch is logged once, so an unsupported framework version is
 * skipped, never woven blindly. Needs no Byte Buddy: the cached-weaving path asks it too.
 *
 * <p>Thread-safe: the per-loader answers are guarded by the map's own lock.
 */
final class Compatibility {
  private final SluiceInstrumentation instrumentation;
  private final AgentLog log;
  // Weak keys: an application class loader that goes away takes its entry with it.
  private final Map<ClassLoader, Boolean> byLoader = new WeakHashMap<>();

  Compatibility(SluiceInstrumentation instrumentation, AgentLog log) {
    this.instrumentation = instrumentation;
    this.log = log;
  }

  SluiceInstrumentation instrumentation() {
    return instrumentation;
  }

  /** Whether the instrumentation applies to {@code typeName} in {@code loader}. */
  boolean appliesTo(String typeName, ClassLoader loader) {
    return instrumentation.typeNames().contains(typeName) && compatible(typeName, loader);
  }

  /** Whether {@code loader} sees every class the advice needs (logging once when it does not). */
  boolean compatible(String typeName, ClassLoader loader) {
    if (instrumentation.requiredClasses().isEmpty()) {
      return true;
    }
    if (loader == null) {
      return false;
    }
    synchronized (byLoader) {
      Boolean known = byLoader.get(loader);
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
                + typeName
                + " in "
                + loader
                + ": unsupported version ("
                + missing
                + " not found"
                + (instrumentation.supportedVersions() == null
                    ? ""
                    : "; supported: " + instrumentation.supportedVersions())
                + "), left alone");
      }
      byLoader.put(loader, missing == null);
      return missing == null;
    }
  }
}
