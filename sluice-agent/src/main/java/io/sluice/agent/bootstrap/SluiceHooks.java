package io.sluice.agent.bootstrap;

/**
 * The agent's root, as advice sees it: the one static reference from woven code into the agent.
 * Advice reads {@link #get()} (one volatile read) and calls the hooks; everything else hangs off
 * the installed {@link GovernanceHooks} instance, which the agent builds and owns.
 */
public final class SluiceHooks {
  private static volatile GovernanceHooks hooks = GovernanceHooks.NOOP;

  private SluiceHooks() {}

  public static GovernanceHooks get() {
    return hooks;
  }

  /** Installs the agent's hooks; called once by the agent at start. */
  public static void install(GovernanceHooks installed) {
    hooks = installed == null ? GovernanceHooks.NOOP : installed;
  }
}
