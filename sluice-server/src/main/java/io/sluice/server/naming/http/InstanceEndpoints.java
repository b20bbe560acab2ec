package io.sluice.server.naming.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.server.naming.BeatMonitor;
import io.sluice.server.naming.Instance;
import io.sluice.server.naming.InstanceValidator;
import io.sluice.server.naming.NamingException;
import io.sluice.server.naming.NamingService;
import io.sluice.server.naming.ServiceKey;
import io.sluice.server.naming.ServiceRegistry;
import io.sluice.server.naming.ServiceView;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.UnaryOperator;

/**
 * The instance endpoints of the v1 and v2 naming HTTP API. Ephemeral instances registered here are
 * owned by the {@link BeatMonitor} (they live while they beat); persistent ones ({@code
 * ephemeral=false}) go through the replicated log and are answered once applied.
 */
final class InstanceEndpoints {
  static final int BEAT_OK = 10200;
  static final int BEAT_NOT_FOUND = 20404;

  private final NamingService naming;
  private final ServiceRegistry registry;
  private final BeatMonitor beats;
  private final ObjectMapper json;

  InstanceEndpoints(NamingService naming, BeatMonitor beats, ObjectMapper json) {
    this.naming = naming;
    this.registry = naming.registry();
    this.beats = beats;
    this.json = json;
  }

  /** POST: registers an instance; answers {@code ok}. */
  CompletionStage<Answer> register(NamingParams params) {
    ServiceKey service = params.service();
    boolean ephemeral = params.bool("ephemeral", true);
    Instance instance = instanceFrom(params, service, ephemeral);
    if (ephemeral) {
      beats.register(service, instance);
      return done(Answer.OK);
    }
    return naming.registerPersistent(service, instance).thenApply(applied -> Answer.OK);
  }

  /**
   * DELETE: removes an instance; {@code ok} also when there was none. Ephemeral instances are those
   * registered over HTTP (a gRPC connection's instances go with the connection), as in Nacos.
   */
  CompletionStage<Answer> deregister(NamingParams params) {
    ServiceKey service = params.service();
    String ip = params.ip();
    int port = params.port();
    if (params.bool("ephemeral", true)) {
      beats.deregister(service, ip, port);
      return done(Answer.OK);
    }
    return naming
        .deregisterPersistent(service, ip, port, params.cluster())
        .thenApply(applied -> Answer.OK);
  }

  /**
   * PUT: replaces weight, enabled and metadata of an existing instance (its health stays; Nacos's
   * defaults apply to what is not given). The instance is looked up among ephemeral instances, then
   * persistent ones, whatever {@code ephemeral} says.
   */
  CompletionStage<Answer> update(NamingParams params) {
    ServiceKey service = params.service();
    String ip = params.ip();
    int port = params.port();
    String cluster = params.cluster();
    Double weight = params.weight();
    Boolean enabled = params.enabled();
    Map<String, String> metadata = metadataOf(params);
    requireService(service);
    return change(
        service,
        ip,
        port,
        cluster,
        old ->
            rebuild(
                service,
                old,
                weight == null ? 1.0 : weight,
                enabled == null || enabled,
                metadata == null ? Map.of() : metadata));
  }

  /** PATCH: changes only what is given of weight, enabled and metadata. */
  CompletionStage<Answer> patch(NamingParams params) {
    ServiceKey service = params.service();
    String ip = params.ip();
    int port = params.port();
    String cluster = params.cluster();
    Double weight = params.weight();
    Boolean enabled = params.enabled();
    Map<String, String> metadata = metadataOf(params);
    return change(
        service,
        ip,
        port,
        cluster,
        old ->
            rebuild(
                service,
                old,
                weight == null ? old.weight() : weight,
                enabled == null ? old.enabled() : enabled,
                metadata == null ? old.metadata() : metadata));
  }

  /** GET: one instance's detail. */
  CompletionStage<Answer> detail(NamingParams params, boolean v2) {
    ServiceKey service = params.service();
    String ip = params.ip();
    int port = params.port();
    String cluster = params.cluster();
    ServiceView view = registry.view(service);
    if (view == null || view.instances().isEmpty()) {
      throw NamingHttpException.notFound(
          NamingHttpException.RESOURCE_NOT_FOUND,
          "resource not found",
          "no ips found for cluster " + cluster + " in service " + service.groupedName());
    }
    for (Instance instance : view.instances()) {
      if (instance.ip().equals(ip)
          && instance.port() == port
          && instance.clusterName().equals(cluster)) {
        ObjectNode detail = json.createObjectNode();
        detail.put(v2 ? "serviceName" : "service", service.groupedName());
        detail.put("ip", ip);
        detail.put("port", port);
        detail.put("clusterName", cluster);
        detail.put("weight", instance.weight());
        detail.put("healthy", instance.healthy());
        detail.put("instanceId", instance.instanceIdIn(service));
        detail.set("metadata", json.valueToTree(instance.metadata()));
        return done(Answer.json(detail.toString()));
      }
    }
    throw NamingHttpException.notFound(
        NamingHttpException.RESOURCE_NOT_FOUND, "resource not found", "no matched ip found!");
  }

  /**
   * GET list: the service's instances as a {@code serviceInfo} with the grouped name, as the v1 API
   * gives them (and v2 inside its envelope). A service that does not exist has no hosts.
   */
  CompletionStage<Answer> list(NamingParams params) {
    ServiceKey service = params.service();
    String clusters = params.optional("clusters", "clusterName");
    boolean healthyOnly = params.bool("healthyOnly", false);
    return done(
        Answer.json(
            registry
                .viewOrEmpty(service)
                .serviceInfoJson(clusters == null ? "" : clusters, healthyOnly, true)));
  }

  /**
   * PUT beat: a heartbeat of an HTTP-registered ephemeral instance. {@code beat} (the 1.x client's
   * JSON) describes the instance, else {@code ip}, {@code port} and {@code clusterName} name it.
   * Answers {@code {"clientBeatInterval":5000,"code":10200,"lightBeatEnabled":true}}, with code
   * 20404 when the instance is unknown and the beat could not recreate it: the client then
   * registers again.
   */
  CompletionStage<Answer> beat(NamingParams params) {
    ServiceKey service = params.service();
    String beatJson = params.optional("beat");
    Instance carried = null;
    String ip;
    int port;
    if (beatJson != null) {
      BeatInfo info = parseBeat(beatJson);
      String cluster =
          info.cluster == null || info.cluster.isBlank() ? params.cluster() : info.cluster;
      carried = instanceFromBeat(service, info, cluster);
      ip = carried.ip();
      port = carried.port();
    } else {
      ip = params.ip();
      port = params.port();
    }
    BeatMonitor.Beat beat = beats.beat(service, ip, port, carried);
    ObjectNode answer = json.createObjectNode();
    answer.put("clientBeatInterval", beat.intervalMillis());
    answer.put("code", beat.found() ? BEAT_OK : BEAT_NOT_FOUND);
    // Light beats (no instance JSON) are all we need while the instance is known.
    answer.put("lightBeatEnabled", true);
    return done(new Answer(answer.toString(), true, true));
  }

  private CompletionStage<Answer> change(
      ServiceKey service, String ip, int port, String cluster, UnaryOperator<Instance> change) {
    if (registry.updateEphemeral(service, ip, port, cluster, change)) {
      return done(Answer.OK);
    }
    Instance persistent = registry.persistent(service, ip + ":" + port + "#" + cluster);
    if (persistent == null) {
      throw NamingHttpException.notFound(
          NamingHttpException.INSTANCE_NOT_FOUND,
          "instance not found",
          "instance "
              + ip
              + ":"
              + port
              + " not found in cluster "
              + cluster
              + " of service "
              + service.groupedName());
    }
    return naming
        .registerPersistent(service, change.apply(persistent))
        .thenApply(applied -> Answer.OK);
  }

  private Instance rebuild(
      ServiceKey service, Instance old, double weight, boolean enabled, Map<String, String> meta) {
    return InstanceValidator.instance(
        service,
        old.instanceId(),
        old.ip(),
        old.port(),
        weight,
        old.healthy(),
        enabled,
        old.ephemeral(),
        old.clusterName(),
        meta);
  }

  private void requireService(ServiceKey service) {
    if (!registry.exists(service)) {
      throw NamingHttpException.invalid(
          NamingHttpException.INSTANCE_ERROR,
          "instance error",
          "service not found, namespace: "
              + service.namespace()
              + ", service: "
              + service.groupedName());
    }
  }

  private Instance instanceFrom(NamingParams params, ServiceKey service, boolean ephemeral) {
    String ip = params.ip();
    int port = params.port();
    Double weight = params.weight();
    Boolean healthy = params.bool("healthy");
    Boolean enabled = params.enabled();
    String cluster = params.cluster();
    Map<String, String> metadata = metadataOf(params);
    try {
      return InstanceValidator.instance(
          service, null, ip, port, weight, healthy, enabled, ephemeral, cluster, metadata);
    } catch (NamingException e) {
      throw NamingHttpException.invalid(e.getMessage());
    }
  }

  private static Map<String, String> metadataOf(NamingParams params) {
    return params.metadata(NamingHttpException.INSTANCE_METADATA_ERROR, "instance metadata error");
  }

  private BeatInfo parseBeat(String beatJson) {
    try {
      BeatInfo info = json.readValue(beatJson, BeatInfo.class);
      if (info == null) {
        throw NamingHttpException.invalid("beat must be a JSON object");
      }
      return info;
    } catch (JsonProcessingException e) {
      throw NamingHttpException.invalid("beat is not valid JSON: " + e.getOriginalMessage());
    }
  }

  private static Instance instanceFromBeat(ServiceKey service, BeatInfo info, String cluster) {
    if (info.port == null) {
      throw NamingHttpException.missing("port");
    }
    try {
      // A 1.x client beats with its instance's weight; 0 there means "not given".
      Double weight = info.weight == null || info.weight == 0 ? null : info.weight;
      return InstanceValidator.instance(
          service, null, info.ip, info.port, weight, true, true, true, cluster, info.metadata);
    } catch (NamingException e) {
      throw NamingHttpException.invalid(e.getMessage());
    }
  }

  private static <T> CompletionStage<T> done(T value) {
    return CompletableFuture.completedFuture(value);
  }

  /** The beat JSON of a 1.x client ({@code BeatInfo}); fields we do not use are ignored. */
  static final class BeatInfo {
    public String ip;
    public Integer port;
    public Double weight;
    public String cluster;
    public String serviceName;
    public Map<String, String> metadata;
  }
}
