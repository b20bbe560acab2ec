package io.sluice.flow;

/** The states of a circuit breaker. */
public enum BreakerState {
  /** Calls pass; outcomes are counted over the sliding statistics interval. */
  CLOSED,
  /** Calls are rejected until the open duration has passed. */
  OPEN,
  /** A configured number of probe calls pass; their outcomes close or re-open the breaker. */
  HALF_OPEN
}
