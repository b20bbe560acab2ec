package io.sluice.server.naming.http;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.server.naming.Instance;
import io.sluice.server.naming.NamingException;
import io.sluice.server.naming.NamingOutcome;
import io.sluice.server.naming.NamingService;
import io.sluice.server.naming.ServiceKey;
import io.sluice.server.naming.ServiceMeta;
import io.sluice.server.naming.ServicePage;
import io.sluice.server.naming.ServiceView;
import io.sluice.server.naming.Subscriber;
import io.sluice.server.naming.health.HealthCheck;
import io.sluice.server.protocol.http.HttpApiException;
import io.sluice.server.protocol.http.NacosErrorCode;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The service endpoints of the v1 and v2 naming HTTP API (what the official client's {@code
 * NamingMaintainService} calls). Service metadata is replicated: writes are answered once applied,
 * and whether one applies (the service exists, is empty) is decided in apply, so two racing writers
 * of one service cannot both create it.
 */
final class ServiceEndpoints {
  static final int MAX_V1_PAGE_SIZE = 10_000;
  static final int MAX_V2_PAGE_SIZE = 500;

  private final NamingService naming;
  private final ObjectMapper json;

  ServiceEndpoints(NamingService naming, ObjectMapper json) {
    this.naming = naming;
    this.json = json;
  }

  /** POST: creates a service; 400 if it exists. */
  CompletionStage<Answer> create(NamingParams params) {
    ServiceKey service = params.service();
    Float threshold = params.protectThreshold(false);
    Map<String, String> metadata = metadataOf(params);
    String selector = params.selector();
    ServiceMeta meta =
        new ServiceMeta(
            threshold == null ? 0f : threshold, metadata == null ? Map.of() : metadata, selector);
    return naming
        .createService(service, meta)
        .thenApply(
            outcome -> {
              if (outcome instanceof NamingOutcome.ServiceExists) {
                throw new HttpApiException(
                    400,
                    NacosErrorCode.SERVICE_ALREADY_EXIST,
                    "specified service " + service.groupedName() + " already exists!");
              }
              return Answer.OK;
            });
  }

  /**
   * PUT: replaces threshold, metadata and selector of an existing service. Health-check keys
   * ({@link HealthCheck#SERVICE_KEY}...) that the new metadata does not mention are kept, so a
   * client that updates a service without knowing of them does not switch its checks off.
   */
  CompletionStage<Answer> update(NamingParams params, boolean v2) {
    ServiceKey service = params.service();
    Float threshold = params.protectThreshold(!v2);
    Map<String, String> metadata = metadataOf(params);
    String selector = params.selector();
    ServiceMeta meta =
        new ServiceMeta(
            threshold == null ? 0f : threshold, metadata == null ? Map.of() : metadata, selector);
    return naming.updateService(service, meta).thenApply(outcome -> answer(service, outcome));
  }

  /** DELETE: deletes a service that has no instances. */
  CompletionStage<Answer> delete(NamingParams params) {
    ServiceKey service = params.service();
    return naming.deleteService(service).thenApply(outcome -> answer(service, outcome));
  }

  /** GET: the service's threshold, metadata, selector and clusters with their health checks. */
  CompletionStage<Answer> detail(NamingParams params, boolean v2) {
    ServiceKey service = params.service();
    if (!naming.exists(service)) {
      throw new HttpApiException(
          400,
          NacosErrorCode.SERVICE_NOT_EXIST,
          "service not found, namespace: "
              + service.namespace()
              + ", serviceName: "
              + service.groupedName());
    }
    ServiceView view = naming.viewOrEmpty(service);
    ServiceMeta meta = view.meta();
    ObjectNode detail = json.createObjectNode();
    detail.put("namespaceId", service.namespace());
    detail.put("groupName", service.group());
    detail.put(v2 ? "serviceName" : "name", service.name());
    detail.put("protectThreshold", meta.protectThreshold());
    detail.set("metadata", json.valueToTree(meta.metadata()));
    detail.set("selector", selectorJson(meta.selector()));
    TreeSet<String> clusters = new TreeSet<>();
    boolean ephemeral = true;
    for (Instance instance : view.instances()) {
      clusters.add(instance.clusterName());
      ephemeral &= instance.ephemeral();
    }
    for (String key : meta.metadata().keySet()) {
      if (key.startsWith(HealthCheck.SERVICE_KEY + ".")) {
        clusters.add(key.substring(HealthCheck.SERVICE_KEY.length() + 1));
      }
    }
    if (v2) {
      ObjectNode clusterMap = detail.putObject("clusterMap");
      for (String cluster : clusters) {
        ObjectNode node = clusterMap.putObject(cluster);
        node.put("clusterName", cluster);
        node.set("healthChecker", healthCheckerJson(meta, cluster));
        node.putObject("metadata");
        node.put("healthyCheckPort", 80);
        node.put("useInstancePortForCheck", true);
      }
      detail.put("ephemeral", ephemeral);
    } else {
      ArrayNode array = detail.putArray("clusters");
      for (String cluster : clusters) {
        ObjectNode node = array.addObject();
        node.put("name", cluster);
        node.set("healthChecker", healthCheckerJson(meta, cluster));
        node.putObject("metadata");
      }
    }
    return done(Answer.json(detail.toString()));
  }

  /**
   * GET list: one page of the group's service names, sorted, and how many there are: v1 {@code
   * {"count":N,"doms":[...]}} (pageNo and pageSize required), v2 {@code
   * {"count":N,"services":[...]}} (pages of 20 by default, at most 500).
   */
  CompletionStage<Answer> list(NamingParams params, boolean v2) {
    String namespace = params.namespace();
    String group = params.optional("groupName");
    int pageNo = params.page("pageNo", v2 ? "1" : null, Integer.MAX_VALUE);
    int pageSize =
        v2
            ? Math.min(MAX_V2_PAGE_SIZE, params.page("pageSize", "20", Integer.MAX_VALUE))
            : params.page("pageSize", null, MAX_V1_PAGE_SIZE);
    ServicePage page = naming.list(namespace, group, pageNo, pageSize);
    ObjectNode answer = json.createObjectNode();
    answer.put("count", page.count());
    answer.set(v2 ? "services" : "doms", json.valueToTree(page.names()));
    return done(Answer.json(answer.toString()));
  }

  /**
   * The metadata keys an instance's lane is read from (sluice-agent's README, "Lanes"): Sluice's
   * own, MSE's, OpenSergo's.
   */
  static final List<String> LANE_KEYS =
      List.of("sluice.lane", "alicloud.service.tag", "traffic.opensergo.io/lane");

  /**
   * GET /nacos/v1/ns/catalog/services (the console's list, at Nacos's console path): one page of a
   * group's services, sorted and read from the index as {@code service/list} is, with what the list
   * shows of each: {@code {"count":N,"serviceList":[{"name","groupName","clusterCount","ipCount",
   * "healthyInstanceCount","triggerFlag","lanes"}]}}. One snapshot read per service on the page, so
   * a page costs the same with ten services or a hundred thousand.
   */
  CompletionStage<Answer> catalogServices(NamingParams params) {
    String namespace = params.namespace();
    String group = params.optional("groupName", "groupNameParam");
    int pageNo = params.page("pageNo", "1", Integer.MAX_VALUE);
    int pageSize = params.page("pageSize", "20", MAX_V2_PAGE_SIZE);
    ServicePage page = naming.list(namespace, group, pageNo, pageSize);
    ObjectNode answer = json.createObjectNode();
    answer.put("count", page.count());
    ArrayNode list = answer.putArray("serviceList");
    for (String name : page.names()) {
      ServiceKey key = ServiceKey.of(namespace, group, name);
      List<Instance> instances = naming.viewOrEmpty(key).instances();
      TreeSet<String> clusters = new TreeSet<>();
      TreeSet<String> lanes = new TreeSet<>();
      int healthy = 0;
      for (Instance instance : instances) {
        clusters.add(instance.clusterName());
        if (instance.healthy()) {
          healthy++;
        }
        String lane = laneOf(instance);
        if (lane != null) {
          lanes.add(lane);
        }
      }
      ObjectNode node = list.addObject();
      node.put("name", key.name());
      node.put("groupName", key.group());
      node.put("clusterCount", clusters.size());
      node.put("ipCount", instances.size());
      node.put("healthyInstanceCount", healthy);
      node.put("triggerFlag", "false");
      node.set("lanes", json.valueToTree(lanes));
    }
    return done(Answer.json(answer.toString()));
  }

  private static String laneOf(Instance instance) {
    for (String key : LANE_KEYS) {
      String lane = instance.metadata().get(key);
      if (lane != null && !lane.isBlank()) {
        return lane;
      }
    }
    return null;
  }

  /**
   * GET /nacos/v1/ns/catalog/instances (the console's, at Nacos's console path): one page of every
   * instance of the service, enabled or not, sorted by cluster, address and port: {@code
   * {"count":N,"list":[instance...]}}. The clients' queries leave disabled instances out, so the
   * console needs this to show, and enable again, an instance it disabled.
   */
  CompletionStage<Answer> catalogInstances(NamingParams params) {
    ServiceKey service = params.service();
    int pageNo = params.page("pageNo", "1", Integer.MAX_VALUE);
    int pageSize = params.page("pageSize", "100", MAX_V1_PAGE_SIZE);
    List<Instance> all = new ArrayList<>(naming.viewOrEmpty(service).instances());
    all.sort(
        Comparator.comparing(Instance::clusterName)
            .thenComparing(Instance::ip)
            .thenComparingInt(Instance::port));
    StringWriter out = new StringWriter();
    try (JsonGenerator generator = json.getFactory().createGenerator(out)) {
      generator.writeStartObject();
      generator.writeNumberField("count", all.size());
      generator.writeArrayFieldStart("list");
      long from = (long) (pageNo - 1) * pageSize;
      for (long i = from; i < Math.min(all.size(), from + pageSize); i++) {
        ServiceView.writeInstance(generator, all.get((int) i), service);
      }
      generator.writeEndArray();
      generator.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return done(Answer.json(out.toString()));
  }

  /**
   * GET subscribers: one page of the clients subscribed to the service through this node, as Nacos
   * lists them: {@code {"count":N,"subscribers":[{"addrStr","agent","app","ip","port",
   * "namespaceId","serviceName","cluster"}]}} (pages of 1,000 by default, at most {@value
   * #MAX_V1_PAGE_SIZE}). Subscriptions are held by client connections and not replicated: this
   * node's own, which {@link ClusterSubscribers} merges with the other members' (Nacos's {@code
   * aggregation}).
   */
  CompletionStage<Answer> subscribers(NamingParams params) {
    ServiceKey service = params.service();
    int pageNo = params.page("pageNo", "1", Integer.MAX_VALUE);
    int pageSize = params.page("pageSize", "1000", MAX_V1_PAGE_SIZE);
    List<Subscriber.Client> all = naming.subscribers(service);
    ObjectNode answer = json.createObjectNode();
    answer.put("count", all.size());
    ArrayNode page = answer.putArray("subscribers");
    long from = (long) (pageNo - 1) * pageSize;
    for (long i = from; i < Math.min(all.size(), from + pageSize); i++) {
      writeSubscriber(page.addObject(), all.get((int) i), service);
    }
    return done(Answer.json(answer.toString()));
  }

  /** One subscriber as Nacos lists it. */
  static void writeSubscriber(ObjectNode node, Subscriber.Client client, ServiceKey service) {
    node.put("addrStr", client.ip() + ":" + client.port());
    node.put("agent", client.agent());
    node.put("app", client.app().isEmpty() ? "unknown" : client.app());
    node.put("ip", client.ip());
    node.put("port", client.port());
    node.put("namespaceId", service.namespace());
    node.put("serviceName", service.groupedName());
    node.put("cluster", client.clusters());
  }

  /**
   * PUT /nacos/v1/ns/cluster: sets a cluster's health check ({@code healthChecker} JSON, as Nacos
   * takes it), kept in the service's metadata under {@link HealthCheck#clusterKey}.
   */
  CompletionStage<Answer> updateCluster(NamingParams params) {
    ServiceKey service = params.service();
    String cluster = params.required("clusterName");
    String healthChecker = params.required("healthChecker");
    return naming
        .setClusterHealthCheck(service, cluster, healthChecker)
        .thenApply(outcome -> answer(service, outcome));
  }

  /** {@code ok}, or the answer Nacos gives when the service is missing or not empty. */
  private static Answer answer(ServiceKey service, NamingOutcome outcome) {
    if (outcome instanceof NamingOutcome.ServiceNotFound) {
      throw new HttpApiException(
          400,
          NacosErrorCode.SERVICE_NOT_EXIST,
          "service " + service.groupedName() + " not found!");
    }
    if (outcome instanceof NamingOutcome.ServiceNotEmpty) {
      throw new HttpApiException(
          400,
          NacosErrorCode.SERVICE_DELETE_FAILURE,
          "Service "
              + service.groupedName()
              + " is not empty, can't be delete. Please unregister instance first");
    }
    return Answer.OK;
  }

  private Map<String, String> metadataOf(NamingParams params) {
    Map<String, String> metadata = params.metadata(NacosErrorCode.SERVICE_METADATA_ERROR);
    if (metadata != null) {
      try {
        HealthCheck.validate(metadata);
      } catch (NamingException e) {
        throw new HttpApiException(400, NacosErrorCode.SERVICE_METADATA_ERROR, e.getMessage());
      }
    }
    return metadata;
  }

  private JsonNode healthCheckerJson(ServiceMeta meta, String cluster) {
    return json.valueToTree(HealthCheck.forCluster(meta.metadata(), cluster).toNacosJson());
  }

  private JsonNode selectorJson(String selector) {
    if (selector != null) {
      try {
        return json.readTree(selector);
      } catch (JsonProcessingException e) {
        // Validated when written; fall through to "none".
      }
    }
    return json.createObjectNode().put("type", "none");
  }

  private static <T> CompletionStage<T> done(T value) {
    return CompletableFuture.completedFuture(value);
  }
}
