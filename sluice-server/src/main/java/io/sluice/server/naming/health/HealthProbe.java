package io.sluice.server.naming.health;

import io.sluice.server.naming.Instance;
import java.util.concurrent.CompletionStage;

/**
 * Checks one instance once. Must not block the caller: the answer arrives through the stage, and it
 * must arrive (true or false) within the probe's own timeout.
 */
public interface HealthProbe {
  /** Completes with whether the instance passed the check. */
  CompletionStage<Boolean> probe(Instance instance, HealthCheck check);
}
