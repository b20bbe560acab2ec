package io.sluice.server.naming;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * An immutable snapshot of a service's instances, with the {@code serviceInfo} JSON that clients
 * receive computed once per filter, as UTF-8 bytes, and shared by every query and push of this
 * snapshot: a query copies them into its response, or sends the kept rendering's direct copy
 * ({@link ServiceInfoJson}), and does nothing else per instance.
 *
 * <p>Selection follows Nacos: filter by the requested clusters and by {@code enabled}; optionally
 * keep healthy instances only; when the healthy share is at or below the protect threshold, return
 * every instance marked healthy and say so in {@code reachProtectionThreshold}.
 */
public final class ServiceView {
  /** How long clients may cache the list (Nacos's default). */
  static final long CACHE_MILLIS = 10_000;

  private static final JsonFactory JSON = new JsonFactory();

  private final ServiceKey key;
  private final List<Instance> instances;
  private final ServiceMeta meta;
  private final long lastRefTime;

  /** Renderings for the usual empty cluster filter, by {@link #slot}: no key is built per query. */
  private final AtomicReferenceArray<ServiceInfoJson> unfiltered = new AtomicReferenceArray<>(4);

  /** Renderings for a non-empty cluster filter, keyed by the filter and the two flags. */
  private final Map<String, ServiceInfoJson> jsonByFilter = new ConcurrentHashMap<>();

  /**
   * Set by every rendering request, cleared by {@link #forgetRenderingsIfIdle}. A racy flag is
   * enough: at worst a rendering is dropped one sweep early or late.
   */
  private boolean used;

  ServiceView(ServiceKey key, List<Instance> instances, ServiceMeta meta, long lastRefTime) {
    this.key = key;
    this.instances = List.copyOf(instances);
    this.meta = meta;
    this.lastRefTime = lastRefTime;
  }

  public ServiceKey key() {
    return key;
  }

  public List<Instance> instances() {
    return instances;
  }

  public ServiceMeta meta() {
    return meta;
  }

  /**
   * Increases with every change of the service; clients drop anything older than what they hold.
   */
  public long lastRefTime() {
    return lastRefTime;
  }

  /**
   * The {@code serviceInfo} JSON object for a client, as UTF-8. The array is shared: never write to
   * it.
   *
   * @param clusters the client's comma-separated cluster filter, echoed back verbatim
   * @param groupedName true for the v1 HTTP shape ({@code "name":"group@@service"})
   */
  public byte[] serviceInfoUtf8(String clusters, boolean healthyOnly, boolean groupedName) {
    return serviceInfo(clusters, healthyOnly, groupedName).utf8();
  }

  /**
   * {@link #serviceInfoUtf8} with, for a rendering this view keeps, its direct copy for a transport
   * that sends it without copying.
   */
  public ServiceInfoJson serviceInfo(String clusters, boolean healthyOnly, boolean groupedName) {
    used = true;
    if (clusters == null || clusters.isEmpty()) {
      int slot = slot(healthyOnly, groupedName);
      ServiceInfoJson json = unfiltered.get(slot);
      if (json == null) {
        json = new ServiceInfoJson(render("", healthyOnly, groupedName), true);
        unfiltered.set(slot, json);
      }
      return json;
    }
    String cacheKey = (healthyOnly ? "h" : "a") + (groupedName ? "g" : "u") + clusters;
    ServiceInfoJson json = jsonByFilter.get(cacheKey);
    if (json == null) {
      byte[] rendered = render(clusters, healthyOnly, groupedName);
      // Bounded: a client choosing random cluster filters must not grow this without limit.
      if (jsonByFilter.size() < 64) {
        json = new ServiceInfoJson(rendered, true);
        jsonByFilter.put(cacheKey, json);
      } else {
        json = new ServiceInfoJson(rendered, false);
      }
    }
    return json;
  }

  /** {@link #serviceInfoUtf8} as a string, for the HTTP API. */
  public String serviceInfoJson(String clusters, boolean healthyOnly, boolean groupedName) {
    return new String(serviceInfoUtf8(clusters, healthyOnly, groupedName), StandardCharsets.UTF_8);
  }

  private static int slot(boolean healthyOnly, boolean groupedName) {
    return (healthyOnly ? 2 : 0) + (groupedName ? 1 : 0);
  }

  /**
   * Drops the cached renderings if nobody asked for one since the last call, so services that are
   * neither queried nor pushed keep only their instances in memory, not their JSON as well.
   */
  void forgetRenderingsIfIdle() {
    if (used) {
      used = false;
      return;
    }
    for (int slot = 0; slot < unfiltered.length(); slot++) {
      unfiltered.set(slot, null);
    }
    if (!jsonByFilter.isEmpty()) {
      jsonByFilter.clear();
    }
  }

  /** The instances a client gets, as {@link #serviceInfoJson} selects them. */
  public Selection select(String clusters, boolean healthyOnly) {
    Set<String> clusterSet = new HashSet<>();
    if (clusters != null) {
      for (String cluster : clusters.split(",")) {
        if (!cluster.isBlank()) {
          clusterSet.add(cluster.trim());
        }
      }
    }
    List<Instance> candidates =
        instances.stream()
            .filter(i -> clusterSet.isEmpty() || clusterSet.contains(i.clusterName()))
            .filter(Instance::enabled)
            .toList();
    long healthy = candidates.stream().filter(Instance::healthy).count();
    float threshold = Math.max(0f, meta.protectThreshold());
    if (!candidates.isEmpty() && (float) healthy / candidates.size() <= threshold) {
      return new Selection(candidates.stream().map(i -> i.withHealthy(true)).toList(), true);
    }
    List<Instance> chosen =
        healthyOnly ? candidates.stream().filter(Instance::healthy).toList() : candidates;
    return new Selection(chosen, false);
  }

  private byte[] render(String clusters, boolean healthyOnly, boolean groupedName) {
    Selection selection = select(clusters, healthyOnly);
    ByteArrayOutputStream out = new ByteArrayOutputStream(128 + selection.hosts().size() * 384);
    try (JsonGenerator json = JSON.createGenerator(out)) {
      json.writeStartObject();
      json.writeStringField("name", groupedName ? key.groupedName() : key.name());
      json.writeStringField("groupName", key.group());
      json.writeStringField("clusters", clusters);
      json.writeNumberField("cacheMillis", CACHE_MILLIS);
      json.writeArrayFieldStart("hosts");
      for (Instance instance : selection.hosts()) {
        writeInstance(json, instance, key);
      }
      json.writeEndArray();
      json.writeNumberField("lastRefTime", lastRefTime);
      json.writeStringField("checksum", "");
      json.writeBooleanField("allIPs", false);
      json.writeBooleanField("reachProtectionThreshold", selection.reachedProtectThreshold());
      json.writeBooleanField("valid", true);
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** Writes one instance in the shape of Nacos's {@code Instance} JSON. */
  public static void writeInstance(JsonGenerator json, Instance instance, ServiceKey service)
      throws IOException {
    json.writeStartObject();
    json.writeStringField("instanceId", instance.instanceIdIn(service));
    json.writeStringField("ip", instance.ip());
    json.writeNumberField("port", instance.port());
    json.writeNumberField("weight", instance.weight());
    json.writeBooleanField("healthy", instance.healthy());
    json.writeBooleanField("enabled", instance.enabled());
    json.writeBooleanField("ephemeral", instance.ephemeral());
    json.writeStringField("clusterName", instance.clusterName());
    json.writeStringField("serviceName", service.groupedName());
    json.writeObjectFieldStart("metadata");
    for (Map.Entry<String, String> entry : instance.metadata().entrySet()) {
      json.writeStringField(entry.getKey(), entry.getValue());
    }
    json.writeEndObject();
    json.writeNumberField("instanceHeartBeatInterval", instance.heartBeatIntervalMillis());
    json.writeNumberField("instanceHeartBeatTimeOut", instance.heartBeatTimeoutMillis());
    json.writeNumberField("ipDeleteTimeout", instance.ipDeleteTimeoutMillis());
    json.writeStringField("instanceIdGenerator", "simple");
    json.writeEndObject();
  }

  /** The instances chosen for a client, and whether protection replaced the healthy subset. */
  public record Selection(List<Instance> hosts, boolean reachedProtectThreshold) {}
}
