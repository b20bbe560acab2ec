package io.sluice.e2e.app;

import java.lang.reflect.Method;

/** Reads the lane of the agent's governance context on the current thread ("none" when unset). */
final class LaneProbe {
  private static final Method CURRENT;
  private static final Method LANE;

  static {
    Method current = null;
    Method lane = null;
    try {
      // Loaded by the bootstrap loader (null): the agent appends its context API there.
      Class<?> context = Class.forName("io.sluice.agent.bootstrap.SluiceContext", false, null);
      current = context.getMethod("current");
      lane = context.getMethod("lane");
    } catch (ReflectiveOperationException | LinkageError e) {
      // Not running under the agent.
    }
    CURRENT = current;
    LANE = lane;
  }

  private LaneProbe() {}

  static String lane() {
    if (CURRENT == null) {
      return "no-agent";
    }
    try {
      Object context = CURRENT.invoke(null);
      Object lane = context == null ? null : LANE.invoke(context);
      return lane == null ? "none" : lane.toString();
    } catch (ReflectiveOperationException e) {
      return "error:" + e;
    }
  }
}
