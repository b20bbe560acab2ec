package io.sluice.flow;

/**
 * Told about every circuit breaker state change. Called on the thread that caused the change (a
 * releasing or entering caller), so it must be quick and must not throw; exceptions are swallowed.
 */
@FunctionalInterface
public interface BreakerListener {

  /**
   * @param resource the resource the breaker guards
   * @param rule a description of the degrade rule
   * @param from the previous state
   * @param to the new state
   */
  void onStateChange(String resource, String rule, BreakerState from, BreakerState to);
}
