package io.sluice.bench.load.lean;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * JSON bodies of the requests the lean driver sends, shaped as the official client 2.3.2 shapes
 * them ({@code headers} empty in the body, {@code module} present). Strings are quoted; nothing
 * else is validated here.
 */
public final class Requests {
  private Requests() {}

  public static byte[] configQuery(String requestId, String dataId, String group, String tenant) {
    StringBuilder b = start(requestId);
    field(b, "dataId", dataId);
    field(b, "group", group);
    field(b, "tenant", tenant);
    return end(b, "config");
  }

  public static byte[] configPublish(
      String requestId, String dataId, String group, String tenant, String content) {
    StringBuilder b = start(requestId);
    field(b, "dataId", dataId);
    field(b, "group", group);
    field(b, "tenant", tenant);
    field(b, "content", content);
    b.append(",\"additionMap\":{}");
    return end(b, "config");
  }

  /** One listen context per key: {@code {dataId, group, tenant, md5}}. */
  public static byte[] configBatchListen(String requestId, List<String[]> dataIdGroupTenantMd5) {
    StringBuilder b = start(requestId);
    b.append(",\"listen\":true,\"configListenContexts\":[");
    for (int i = 0; i < dataIdGroupTenantMd5.size(); i++) {
      String[] c = dataIdGroupTenantMd5.get(i);
      b.append(i == 0 ? "{" : ",{");
      b.append("\"dataId\":");
      Json.quote(b, c[0]);
      field(b, "group", c[1]);
      field(b, "tenant", c[2]);
      field(b, "md5", c[3]);
      b.append('}');
    }
    b.append(']');
    return end(b, "config");
  }

  /** An ephemeral instance, registered or deregistered on the sending connection. */
  public static byte[] instance(
      String requestId,
      String type,
      String namespace,
      String group,
      String service,
      String ip,
      int port,
      Map<String, String> metadata) {
    StringBuilder b = start(requestId);
    field(b, "namespace", namespace);
    field(b, "serviceName", service);
    field(b, "groupName", group);
    field(b, "type", type);
    b.append(",\"instance\":{\"ip\":");
    Json.quote(b, ip);
    b.append(",\"port\":").append(port);
    b.append(",\"weight\":1.0,\"healthy\":true,\"enabled\":true,\"ephemeral\":true");
    b.append(",\"clusterName\":\"DEFAULT\",\"metadata\":{");
    boolean first = true;
    for (Map.Entry<String, String> m : metadata.entrySet()) {
      if (!first) {
        b.append(',');
      }
      first = false;
      Json.quote(b, m.getKey()).append(':');
      Json.quote(b, m.getValue());
    }
    b.append("},\"instanceHeartBeatInterval\":5000,\"instanceHeartBeatTimeOut\":15000");
    b.append(",\"ipDeleteTimeout\":30000}");
    return end(b, "naming");
  }

  public static byte[] serviceQuery(
      String requestId, String namespace, String group, String service) {
    StringBuilder b = start(requestId);
    field(b, "namespace", namespace);
    field(b, "serviceName", service);
    field(b, "groupName", group);
    b.append(",\"cluster\":\"\",\"healthyOnly\":false,\"udpPort\":0");
    return end(b, "naming");
  }

  public static byte[] subscribe(
      String requestId, String namespace, String group, String service, boolean subscribe) {
    StringBuilder b = start(requestId);
    field(b, "namespace", namespace);
    field(b, "serviceName", service);
    field(b, "groupName", group);
    b.append(",\"subscribe\":").append(subscribe).append(",\"clusters\":\"\"");
    return end(b, "naming");
  }

  /** The client's keep-alive, which the official client sends every 5 s on an idle connection. */
  public static byte[] healthCheck(String requestId) {
    return end(start(requestId), "internal");
  }

  private static StringBuilder start(String requestId) {
    StringBuilder b = new StringBuilder(256).append("{\"headers\":{},\"requestId\":");
    return Json.quote(b, requestId);
  }

  private static void field(StringBuilder b, String name, String value) {
    b.append(",\"").append(name).append("\":");
    Json.quote(b, value == null ? "" : value);
  }

  private static byte[] end(StringBuilder b, String module) {
    b.append(",\"module\":\"").append(module).append("\"}");
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }
}
