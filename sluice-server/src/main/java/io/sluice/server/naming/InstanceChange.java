package io.sluice.server.naming;

import java.util.Map;

/**
 * A change of an instance's weight, enabled flag and metadata, as the HTTP API's {@code PUT}
 * (replace: what is not given takes Nacos's default) and {@code PATCH} (only what is given) ask for
 * it. Health, identity and heartbeat settings stay. Null fields are not given.
 */
public record InstanceChange(
    Double weight, Boolean enabled, Map<String, String> metadata, boolean patch) {

  public InstanceChange {
    metadata = metadata == null ? null : Map.copyOf(metadata);
  }

  /**
   * The instance after the change.
   *
   * @throws NamingException when the result breaks a rule (a weight out of range, metadata too
   *     large)
   */
  public Instance applyTo(ServiceKey service, Instance old) {
    double newWeight = weight != null ? weight : patch ? old.weight() : 1.0;
    boolean newEnabled = enabled != null ? enabled : !patch || old.enabled();
    Map<String, String> newMetadata =
        metadata != null ? metadata : patch ? old.metadata() : Map.of();
    return InstanceValidator.instance(
        service,
        old.instanceId(),
        old.ip(),
        old.port(),
        newWeight,
        old.healthy(),
        newEnabled,
        old.ephemeral(),
        old.clusterName(),
        newMetadata);
  }
}
