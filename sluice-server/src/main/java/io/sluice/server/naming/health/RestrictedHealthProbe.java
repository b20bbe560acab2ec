package io.sluice.server.naming.health;

import io.sluice.server.naming.Instance;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A probe that checks only the targets {@link HealthCheckTargets} allows: any other instance fails
 * its check without a packet sent, and the reason is logged once per instance (up to {@value
 * #MAX_WARNED} instances; beyond, silently).
 */
public final class RestrictedHealthProbe implements HealthProbe {
  private static final Logger log = LoggerFactory.getLogger(RestrictedHealthProbe.class);
  static final int MAX_WARNED = 1_024;

  private final HealthProbe probe;
  private final HealthCheckTargets targets;
  private final Set<String> warned = ConcurrentHashMap.newKeySet();

  public RestrictedHealthProbe(HealthProbe probe, HealthCheckTargets targets) {
    this.probe = probe;
    this.targets = targets;
  }

  @Override
  public CompletionStage<Boolean> probe(Instance instance, HealthCheck check) {
    String refusal = targets.refusal(instance.ip(), instance.port(), check);
    if (refusal == null) {
      return probe.probe(instance, check);
    }
    String key = instance.ip() + ":" + instance.port();
    if (warned.size() < MAX_WARNED && warned.add(key)) {
      log.warn("not health-checking {} (stays unhealthy): {}", key, refusal);
    }
    return CompletableFuture.completedFuture(false);
  }
}
