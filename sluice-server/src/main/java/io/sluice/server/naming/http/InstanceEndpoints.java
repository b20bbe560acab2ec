package io.sluice.server.naming.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.server.naming.Beat;
import io.sluice.server.naming.Instance;
import io.sluice.server.naming.InstanceChange;
import io.sluice.server.naming.InstanceValidator;
import io.sluice.server.naming.NamingOutcome;
import io.sluice.server.naming.NamingService;
import io.sluice.server.naming.ServiceKey;
import io.sluice.server.naming.ServiceView;
import io.sluice.server.protocol.http.HttpApiException;
import io.sluice.server.protocol.http.NacosErrorCode;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The instance endpoints of the v1 and v2 naming HTTP API. Ephemeral instances registered here are
 * kept alive by the client's heartbeats; persistent ones ({@code ephemeral=false}) go through the
 * replicated log and are answered once applied.
 */
final class InstanceEndpoints {
  static final int BEAT_OK = 10200;
  static final int BEAT_NOT_FOUND = 20404;

  private final NamingService naming;
  private final ObjectMapper json;

  InstanceEndpoints(NamingService naming, ObjectMapper json) {
    this.naming = naming;
    this.json = json;
  }

  /** POST: registers an instance; answers {@code ok}. */
  CompletionStage<Answer> register(NamingParams params) {
    ServiceKey service = params.service();
    boolean ephemeral = params.bool("ephemeral", true);
    Instance instance = instanceFrom(params, service, ephemeral);
    if (ephemeral) {
      naming.registerHeartbeating(service, instance);
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
      naming.deregisterHeartbeating(service, ip, port);
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
    return change(params, false);
  }

  /** PATCH: changes only what is given of weight, enabled and metadata. */
  CompletionStage<Answer> patch(NamingParams params) {
    return change(params, true);
  }

  private CompletionStage<Answer> change(NamingParams params, boolean patch) {
    ServiceKey service = params.service();
    String ip = params.ip();
    int port = params.port();
    String cluster = params.cluster();
    InstanceChange change =
        new InstanceChange(params.weight(), params.enabled(), metadataOf(params), patch);
    return naming
        .updateInstance(service, ip, port, cluster, change)
        .thenApply(
            outcome -> {
              if (outcome instanceof NamingOutcome.InstanceNotFound missing) {
                if (!patch && !missing.serviceExists()) {
                  throw new HttpApiException(
                      400,
                      NacosErrorCode.INSTANCE_ERROR,
                      "service not found, namespace: "
                          + service.namespace()
                          + ", service: "
                          + service.groupedName());
                }
                throw new HttpApiException(
                    404,
                    NacosErrorCode.INSTANCE_NOT_FOUND,
                    "instance "
                        + ip
                        + ":"
                        + port
                        + " not found in cluster "
                        + cluster
                        + " of service "
                        + service.groupedName());
              }
              return Answer.OK;
            });
  }

  /** GET: one instance's detail. */
  CompletionStage<Answer> detail(NamingParams params, boolean v2) {
    ServiceKey service = params.service();
    String ip = params.ip();
    int port = params.port();
    String cluster = params.cluster();
    ServiceView view = naming.view(service);
    if (view == null || view.instances().isEmpty()) {
      throw new HttpApiException(
          404,
          NacosErrorCode.RESOURCE_NOT_FOUND,
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
    throw new HttpApiException(404, NacosErrorCode.RESOURCE_NOT_FOUND, "no matched ip found!");
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
            naming
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
    Beat beat = naming.heartbeat(service, ip, port, carried);
    ObjectNode answer = json.createObjectNode();
    answer.put("clientBeatInterval", beat.intervalMillis());
    answer.put("code", beat.found() ? BEAT_OK : BEAT_NOT_FOUND);
    // Light beats (no instance JSON) are all we need while the instance is known.
    answer.put("lightBeatEnabled", true);
    return done(new Answer(answer.toString(), true, true));
  }

  private Instance instanceFrom(NamingParams params, ServiceKey service, boolean ephemeral) {
    String ip = params.ip();
    int port = params.port();
    Double weight = params.weight();
    Boolean healthy = params.bool("healthy");
    Boolean enabled = params.enabled();
    String cluster = params.cluster();
    Map<String, String> metadata = metadataOf(params);
    return InstanceValidator.instance(
        service, null, ip, port, weight, healthy, enabled, ephemeral, cluster, metadata);
  }

  private static Map<String, String> metadataOf(NamingParams params) {
    return params.metadata(NacosErrorCode.INSTANCE_METADATA_ERROR);
  }

  private BeatInfo parseBeat(String beatJson) {
    try {
      BeatInfo info = json.readValue(beatJson, BeatInfo.class);
      if (info == null) {
        throw HttpApiException.invalid("beat must be a JSON object");
      }
      return info;
    } catch (JsonProcessingException e) {
      throw HttpApiException.invalid("beat is not valid JSON: " + e.getOriginalMessage());
    }
  }

  private static Instance instanceFromBeat(ServiceKey service, BeatInfo info, String cluster) {
    if (info.port == null) {
      throw NamingParams.missing("port");
    }
    // A 1.x client beats with its instance's weight; 0 there means "not given".
    Double weight = info.weight == null || info.weight == 0 ? null : info.weight;
    return InstanceValidator.instance(
        service, null, info.ip, info.port, weight, true, true, true, cluster, info.metadata);
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
