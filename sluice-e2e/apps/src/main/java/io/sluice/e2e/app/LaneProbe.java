package io.sluice.e2e.app;

import java.lang.reflect.Method;

/**
 * Reads the lane of the agent's governance context on the current thread ("none" when unset,
 * "no-agent" when the agent is absent). Looks the API up again until found, because the agent may
 * be attached to the running application.
 */
final class LaneProbe {
  private static volatile Method current;
  private static volatile Method lane;
  private static volatile Method origin;

  private LaneProbe() {}

  static String lane() {
    return read(false);
  }

  /** The calling application's name the agent read from the request ("none" when unknown). */
  static String origin() {
    return read(true);
  }

  private static String read(boolean readOrigin) {
    if (current == null && !lookUp()) {
      return "no-agent";
    }
    try {
      Object context = current.invoke(null);
      Object value = context == null ? null : (readOrigin ? origin : lane).invoke(context);
      return value == null ? "none" : value.toString();
    } catch (ReflectiveOperationException e) {
      return "error:" + e;
    }
  }

  private static boolean lookUp() {
    try {
      // Loaded by the bootstrap loader (null): the agent appends its context API there.
      Class<?> context = Class.forName("io.sluice.agent.bootstrap.SluiceContext", false, null);
      lane = context.getMethod("lane");
      origin = context.getMethod("origin");
      current = context.getMethod("current");
      return true;
    } catch (ReflectiveOperationException | LinkageError e) {
      return false;
    }
  }
}
