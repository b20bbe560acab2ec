package io.sluice.server.naming;

import java.util.Map;

/**
 * What a service is besides its instances: set by creating or updating the service (replicated),
 * absent for services that exist only because instances were registered.
 *
 * @param protectThreshold when the healthy share of instances is at or below it, queries return
 *     every instance (marked healthy) rather than very few, as Nacos does
 * @param selector the selector JSON as given; kept and reported, not applied
 */
public record ServiceMeta(float protectThreshold, Map<String, String> metadata, String selector) {
  public static final ServiceMeta DEFAULT = new ServiceMeta(0f, Map.of(), null);

  public ServiceMeta {
    metadata = Map.copyOf(metadata);
  }
}
