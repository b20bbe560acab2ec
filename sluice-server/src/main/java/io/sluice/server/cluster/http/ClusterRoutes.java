package io.sluice.server.cluster.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.protocol.http.ApiStyle;
import io.sluice.server.protocol.http.AsyncReply;
import io.sluice.server.protocol.http.HttpApiException;
import io.sluice.server.protocol.http.HttpParams;
import io.sluice.server.protocol.http.HttpResponses;
import io.sluice.server.protocol.http.HttpRoutes;
import io.sluice.server.protocol.http.RequestParams;
import io.sluice.server.protocol.http.RestResult;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;
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
 *   <li>{@code POST /nacos/v1/core/cluster/members?address=ip:port} adds a node, {@code DELETE}
 *       with the same parameter removes one (a Sluice extension; a Raft membership change, see
 *       {@link MembershipChanges}); answers with every member's address once it is committed.
 *   <li>{@code GET /nacos/v2/core/loader/cluster}: client connections per node (asked of every node
 *       over HTTP through {@link MemberCalls}, with the caller's access token), with total, min,
 *       average and max.
 *   <li>{@code GET /nacos/v2/core/loader/smartReloadCluster[?loaderFactor=0.1]}: Nacos's rebalance.
 *       A node above {@code avg × (1 + loaderFactor)} connections is asked ({@code reloadCurrent})
 *       to send its excess over the average to reconnect, pointed at the least loaded node below
 *       {@code avg × (1 − loaderFactor)} when there is one (else clients move to the next server in
 *       their own list). Run it after a node joins or comes back.
 * </ul>
 */
public final class ClusterRoutes implements HttpRoutes {
  static final String NODES_PATH = "/nacos/v1/core/cluster/nodes";
  static final String SERVER_LIST_PATH = "/nacos/serverlist";

  /** The Raft group's name in {@code raftMetaData}, where Nacos names its own groups. */
  static final String GROUP_NAME = "sluice";

  /** Sluice's membership change: {@code POST} adds, {@code DELETE} removes ({@code address}). */
  static final String MEMBERS_PATH = "/nacos/v1/core/cluster/members";

  /** A form with one address (and a token) fits. */
  private static final int MAX_MEMBERS_BODY_BYTES = 4_096;

  static final String LOADER_CLUSTER_PATH = "/nacos/v2/core/loader/cluster";
  static final String SMART_RELOAD_PATH = "/nacos/v2/core/loader/smartReloadCluster";
  static final double DEFAULT_LOADER_FACTOR = 0.1;
  private static final long PEER_TIMEOUT_MILLIS = 3_000;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Supplier<ClusterView> view;
  private final MembershipChanges membership;
  private final String version;
  private final MemberCalls members;
  private final IntSupplier ownConnections;

  /**
   * @param members the other nodes, asked over HTTP for their client connections
   * @param ownConnections this node's client connections (counted here, not asked of itself)
   */
  public ClusterRoutes(
      Supplier<ClusterView> view,
      MembershipChanges membership,
      String version,
      MemberCalls members,
      IntSupplier ownConnections) {
    this.view = view;
    this.membership = membership;
    this.version = version;
    this.members = members;
    this.ownConnections = ownConnections;
  }

  /** One node's client connections, as {@code loader/cluster} lists them. */
  record NodeLoad(String address, int sdkConCount, String error) {}

  /** What {@code loader/cluster} answers. */
  record ClusterLoad(
      int total,
      int min,
      double avg,
      int max,
      int memberCount,
      int metricsCount,
      List<NodeLoad> detail) {}

  /** One reload asked of an overloaded node. */
  record Reload(String address, int count, String redirectAddress, String result) {}

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
    router
        .route(HttpMethod.POST, MEMBERS_PATH)
        .handler(RequestParams.handler(MAX_MEMBERS_BODY_BYTES, ApiStyle.V1, this::addMember));
    router
        .route(HttpMethod.DELETE, MEMBERS_PATH)
        .handler(RequestParams.handler(MAX_MEMBERS_BODY_BYTES, ApiStyle.V1, this::removeMember));
    router
        .route(HttpMethod.GET, LOADER_CLUSTER_PATH)
        .handler(RequestParams.handler(0, ApiStyle.V1, this::loaderCluster));
    router
        .route(HttpMethod.GET, SMART_RELOAD_PATH)
        .handler(RequestParams.handler(0, ApiStyle.V1, this::smartReload));
  }

  private void addMember(HttpServerRequest request, HttpParams params) {
    changeMembers(request, membership.add(requiredAddress(params)));
  }

  private void removeMember(HttpServerRequest request, HttpParams params) {
    changeMembers(request, membership.remove(requiredAddress(params)));
  }

  private static String requiredAddress(HttpParams params) {
    String address = params.get("address");
    if (address == null || address.isBlank()) {
      throw HttpApiException.missingParameter("address");
    }
    return address.strip();
  }

  private void changeMembers(HttpServerRequest request, CompletableFuture<List<String>> change) {
    CompletableFuture<List<String>> answered =
        change.exceptionally(
            failure -> {
              Throwable cause =
                  failure instanceof java.util.concurrent.CompletionException
                          && failure.getCause() != null
                      ? failure.getCause()
                      : failure;
              throw cause instanceof IllegalArgumentException
                  ? HttpApiException.invalid(cause.getMessage())
                  : HttpApiException.unavailable(
                      "the membership change did not complete: " + cause.getMessage());
            });
    AsyncReply.when(
        answered,
        request,
        ApiStyle.V1,
        members -> HttpResponses.ok(request.response(), RestResult.ok("success", members)));
  }

  private void loaderCluster(HttpServerRequest request, HttpParams params) {
    AsyncReply.when(
        loads(MemberCalls.callerToken(request, params)),
        request,
        ApiStyle.V1,
        load -> HttpResponses.ok(request.response(), load));
  }

  private void smartReload(HttpServerRequest request, HttpParams params) {
    String factorParam = params.get("loaderFactor");
    double factor;
    try {
      factor = factorParam == null ? DEFAULT_LOADER_FACTOR : Double.parseDouble(factorParam);
    } catch (NumberFormatException e) {
      throw HttpApiException.invalid("loaderFactor must be a number");
    }
    if (!(factor >= 0 && factor <= 1)) {
      throw HttpApiException.invalid("loaderFactor must be between 0 and 1");
    }
    String token = MemberCalls.callerToken(request, params);
    CompletableFuture<List<Reload>> reloads =
        loads(token)
            .thenCompose(
                load -> {
                  List<NodeLoad> answered = new ArrayList<>();
                  for (NodeLoad node : load.detail()) {
                    if (node.error() == null) {
                      answered.add(node);
                    }
                  }
                  if (answered.size() < load.memberCount()) {
                    throw HttpApiException.invalid(
                        "not every node answered with its load, so the cluster cannot be"
                            + " balanced now: "
                            + load.detail());
                  }
                  return reload(answered, load.avg(), factor, token);
                });
    AsyncReply.when(
        reloads,
        request,
        ApiStyle.V1,
        done -> HttpResponses.ok(request.response(), RestResult.ok("success", done)));
  }

  /**
   * Asks every overloaded node to move its excess over the average, shared among the nodes below
   * {@code avg × (1 − factor)} up to the average each; an excess no such node can take is sent off
   * without a target (its clients move to the next server in their own list).
   */
  private CompletableFuture<List<Reload>> reload(
      List<NodeLoad> nodes, double avg, double factor, String token) {
    double over = avg * (1 + factor);
    double under = avg * (1 - factor);
    List<String> targets = new ArrayList<>();
    List<Integer> room = new ArrayList<>();
    for (NodeLoad node : nodes) {
      if (node.sdkConCount() < under) {
        targets.add(node.address());
        room.add((int) Math.ceil(avg - node.sdkConCount()));
      }
    }
    List<CompletableFuture<Reload>> asked = new ArrayList<>();
    int target = 0;
    for (NodeLoad node : nodes) {
      if (node.sdkConCount() <= over) {
        continue;
      }
      int excess = (int) Math.floor(node.sdkConCount() - avg);
      while (excess > 0) {
        while (target < targets.size() && room.get(target) == 0) {
          target++;
        }
        String redirect = target < targets.size() ? targets.get(target) : "";
        int count = target < targets.size() ? Math.min(excess, room.get(target)) : excess;
        if (target < targets.size()) {
          room.set(target, room.get(target) - count);
        }
        excess -= count;
        asked.add(askToReload(node.address(), count, redirect, token));
      }
    }
    return CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new))
        .thenApply(done -> asked.stream().map(CompletableFuture::join).toList());
  }

  private CompletableFuture<Reload> askToReload(
      String address, int count, String redirect, String token) {
    String query =
        "/nacos/v2/core/loader/reloadCurrent?count="
            + count
            + (redirect.isEmpty()
                ? ""
                : "&redirectAddress=" + URLEncoder.encode(redirect, StandardCharsets.UTF_8));
    return members
        .get(address, query, token, PEER_TIMEOUT_MILLIS)
        .handle(
            (body, failure) ->
                new Reload(
                    address,
                    count,
                    redirect,
                    failure == null ? body.strip() : "failed: " + failure.getMessage()));
  }

  /** Every member's client connections: this node's counted here, the others' asked over HTTP. */
  private CompletableFuture<ClusterLoad> loads(String token) {
    List<ClusterView.Member> nodes = view.get().members();
    List<CompletableFuture<NodeLoad>> asked = new ArrayList<>();
    for (ClusterView.Member member : nodes) {
      if (member.self()) {
        asked.add(
            CompletableFuture.completedFuture(
                new NodeLoad(member.address(), ownConnections.getAsInt(), null)));
        continue;
      }
      asked.add(
          members
              .get(member.address(), "/nacos/v2/core/loader/current", token, PEER_TIMEOUT_MILLIS)
              .handle(
                  (body, failure) -> {
                    if (failure != null) {
                      return new NodeLoad(member.address(), 0, MemberCalls.reason(failure));
                    }
                    try {
                      return new NodeLoad(member.address(), JSON.readTree(body).size(), null);
                    } catch (IOException e) {
                      return new NodeLoad(member.address(), 0, "unreadable answer");
                    }
                  }));
    }
    return CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new))
        .thenApply(
            done -> {
              List<NodeLoad> detail = asked.stream().map(CompletableFuture::join).toList();
              int total = 0;
              int min = Integer.MAX_VALUE;
              int max = 0;
              int answered = 0;
              for (NodeLoad node : detail) {
                if (node.error() == null) {
                  answered++;
                  total += node.sdkConCount();
                  min = Math.min(min, node.sdkConCount());
                  max = Math.max(max, node.sdkConCount());
                }
              }
              return new ClusterLoad(
                  total,
                  answered == 0 ? 0 : min,
                  answered == 0 ? 0 : (double) total / answered,
                  max,
                  nodes.size(),
                  answered,
                  detail);
            });
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
