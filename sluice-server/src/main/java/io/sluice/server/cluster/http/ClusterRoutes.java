package io.sluice.server.cluster.http;

import io.sluice.server.protocol.http.ApiStyle;
import io.sluice.server.protocol.http.HttpParams;
import io.sluice.server.protocol.http.HttpResponses;
import io.sluice.server.protocol.http.HttpRoutes;
import io.sluice.server.protocol.http.RequestParams;
import io.sluice.server.protocol.http.RestResult;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Nacos's cluster endpoints on the HTTP port, answered from this node's view of the Raft group.
 *
 * <ul>
 *   <li>{@code GET /nacos/v1/core/cluster/nodes[?keyword=]}: every member (Nacos's {@code Member}
 *       fields: {@code ip}, {@code port}, {@code state}, {@code address}, {@code extendInfo} with
 *       {@code raftPort} and the Raft group's leader, members and term).
 *   <li>{@code GET /nacos/serverlist}: the address-server style list, one {@code ip:port} a line,
 *       which a client configured with an address-server endpoint reads to find every node.
 * </ul>
 */
public final class ClusterRoutes implements HttpRoutes {
  static final String NODES_PATH = "/nacos/v1/core/cluster/nodes";
  static final String SERVER_LIST_PATH = "/nacos/serverlist";

  /** The Raft group's name in {@code raftMetaData}, where Nacos names its own groups. */
  static final String GROUP_NAME = "sluice";

  private final Supplier<ClusterView> view;
  private final String version;

  public ClusterRoutes(Supplier<ClusterView> view, String version) {
    this.view = view;
    this.version = version;
  }

  /** One member as Nacos's {@code Member} serialises. */
  record MemberJson(
      String ip,
      int port,
      String state,
      Map<String, Object> extendInfo,
      String address,
      int failAccessCnt) {}

  @Override
  public void mount(Router router) {
    router
        .route(HttpMethod.GET, NODES_PATH)
        .handler(RequestParams.handler(0, ApiStyle.V1, this::nodes));
    router
        .route(HttpMethod.GET, SERVER_LIST_PATH)
        .handler(RequestParams.handler(0, ApiStyle.V1, this::serverList));
  }

  private void nodes(HttpServerRequest request, HttpParams params) {
    ClusterView cluster = view.get();
    String keyword = params.get("keyword");
    List<String> raftMembers = new ArrayList<>();
    String leader = null;
    for (ClusterView.Member member : cluster.members()) {
      raftMembers.add(member.ip() + ":" + member.raftPort());
      if (member.leader()) {
        leader = member.ip() + ":" + member.raftPort();
      }
    }
    Map<String, Object> group = new LinkedHashMap<>();
    group.put("leader", leader);
    group.put("raftGroupMember", raftMembers);
    group.put("term", cluster.term());
    List<MemberJson> members = new ArrayList<>();
    for (ClusterView.Member member : cluster.members()) {
      if (keyword != null && !keyword.isBlank() && !member.address().contains(keyword.strip())) {
        continue;
      }
      Map<String, Object> extendInfo = new LinkedHashMap<>();
      extendInfo.put("raftPort", Integer.toString(member.raftPort()));
      extendInfo.put("raftMetaData", Map.of("metaDataMap", Map.of(GROUP_NAME, group)));
      extendInfo.put("version", version);
      extendInfo.put("self", member.self());
      members.add(
          new MemberJson(
              member.ip(), member.port(), member.state(), extendInfo, member.address(), 0));
    }
    HttpResponses.ok(request.response(), RestResult.ok((String) null, members));
  }

  private void serverList(HttpServerRequest request, HttpParams params) {
    StringBuilder list = new StringBuilder();
    for (ClusterView.Member member : view.get().members()) {
      list.append(member.address()).append('\n');
    }
    HttpResponses.text(request.response(), 200, list.toString());
  }
}
