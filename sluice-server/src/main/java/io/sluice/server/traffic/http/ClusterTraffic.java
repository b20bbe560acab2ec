package io.sluice.server.traffic.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.cluster.http.MemberCalls;
import io.sluice.server.traffic.TrafficStore;
import io.sluice.server.traffic.TrafficStore.AppView;
import io.sluice.server.traffic.TrafficStore.InstanceView;
import io.sluice.server.traffic.TrafficStore.Point;
import io.sluice.server.traffic.TrafficStore.ResourceView;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The agents' traffic of the whole cluster, for the console: each agent reports to one member, and
 * each member keeps what it was sent, so the node serving the console asks the others for their
 * share ({@code scope=local} answers of the same endpoints) and merges it with its own.
 *
 * <p>A sum must be of one second across every instance, wherever it reports. So resources and
 * series are read in two rounds: first every member's instances of the application (with the newest
 * second each has sent), from which the second to show is chosen as on one node ({@link
 * TrafficStore#settledSecond(List)}); then, from the members holding instances of it, their sums at
 * that second, added up ({@link Point#plus}). An instance listed by two members (its agent moved
 * after a failed report) counts as one, with its newest report. Members that did not answer are
 * named in the answer's {@code missing}, never silently left out.
 *
 * <p>Seconds and report times are on the clock of the member that took each report, so members'
 * clocks must agree (as NTP keeps them) for the seconds to line up.
 */
final class ClusterTraffic {
  private final TrafficStore store;
  private final MemberCalls members;
  private final ObjectMapper json;

  ClusterTraffic(TrafficStore store, MemberCalls members, ObjectMapper json) {
    this.store = store;
    this.members = members;
    this.json = json;
  }

  /** What the console's apps call answers: {@code {apps, missing}}. */
  CompletableFuture<Map<String, Object>> apps(String token) {
    return members
        .askOthers(TrafficRoutes.PATH + "/apps?scope=local", token, this::readApps)
        .thenApplyAsync(
            gathered -> {
              Instances instances = new Instances();
              instances.add(store.apps(), members.selfAddress());
              for (MemberCalls.Answer<List<AppView>> answer : gathered.answers()) {
                instances.add(answer.value(), answer.address());
              }
              return answer("apps", instances.apps(), gathered.missing());
            },
            members.worker());
  }

  /** What the console's resources call answers: {@code {app, resources, missing}}. */
  CompletableFuture<Map<String, Object>> resources(String app, String token) {
    return settle(app, token)
        .thenCompose(
            settled ->
                members
                    .ask(
                        settled.holders(),
                        TrafficRoutes.PATH
                            + "/resources?scope=local&app="
                            + encode(app)
                            + "&second="
                            + settled.second(),
                        token,
                        body -> read(body, "resources", ResourceView[].class))
                    .thenApplyAsync(
                        gathered -> {
                          Map<String, ResourceView> merged = new TreeMap<>();
                          addResources(merged, store.resourcesAt(app, settled.second()));
                          for (MemberCalls.Answer<List<ResourceView>> answer : gathered.answers()) {
                            addResources(merged, answer.value());
                          }
                          Map<String, Object> out = new LinkedHashMap<>();
                          out.put("app", app);
                          out.put("resources", List.copyOf(merged.values()));
                          out.put("missing", missing(settled.missing(), gathered.missing()));
                          return out;
                        },
                        members.worker()));
  }

  /** What the console's series call answers: {@code {app, resource, seconds, missing}}. */
  CompletableFuture<Map<String, Object>> series(
      String app, String resource, String instance, String token) {
    return settle(app, token)
        .thenCompose(
            settled ->
                members
                    .ask(
                        settled.holders(),
                        TrafficRoutes.PATH
                            + "/series?scope=local&app="
                            + encode(app)
                            + "&resource="
                            + encode(resource)
                            + (instance == null ? "" : "&instance=" + encode(instance))
                            + "&last="
                            + settled.second(),
                        token,
                        body -> read(body, "seconds", Point[].class))
                    .thenApplyAsync(
                        gathered -> {
                          Map<Long, Point> merged = new TreeMap<>();
                          addPoints(
                              merged, store.seriesUpTo(app, resource, instance, settled.second()));
                          for (MemberCalls.Answer<List<Point>> answer : gathered.answers()) {
                            addPoints(merged, answer.value());
                          }
                          Map<String, Object> out = new LinkedHashMap<>();
                          out.put("app", app);
                          out.put("resource", resource);
                          out.put("seconds", List.copyOf(merged.values()));
                          out.put("missing", missing(settled.missing(), gathered.missing()));
                          return out;
                        },
                        members.worker()));
  }

  /**
   * The second to show for {@code app}, the other members holding instances of it, who is missing.
   */
  private record Settled(long second, List<String> holders, List<MemberCalls.Missing> missing) {}

  private CompletableFuture<Settled> settle(String app, String token) {
    return members
        .askOthers(
            TrafficRoutes.PATH + "/apps?scope=local&app=" + encode(app), token, this::readApps)
        .thenApplyAsync(
            gathered -> {
              Instances instances = new Instances();
              AppView own = store.app(app);
              if (own != null) {
                instances.add(List.of(own), members.selfAddress());
              }
              List<String> holders = new ArrayList<>();
              for (MemberCalls.Answer<List<AppView>> answer : gathered.answers()) {
                List<AppView> theirs = answer.value();
                if (!theirs.isEmpty()) {
                  holders.add(answer.address());
                  instances.add(theirs, answer.address());
                }
              }
              return new Settled(
                  store.settledSecond(instances.of(app)), holders, gathered.missing());
            },
            members.worker());
  }

  /** Every application's instances across members, one entry per instance: its newest report. */
  private static final class Instances {
    private final Map<String, Map<String, InstanceView>> byApp = new TreeMap<>();

    void add(List<AppView> apps, String node) {
      for (AppView app : apps) {
        Map<String, InstanceView> instances =
            byApp.computeIfAbsent(app.app(), a -> new TreeMap<>());
        for (InstanceView instance : app.instances()) {
          instances.merge(
              instance.instance(),
              instance.atNode(node),
              (a, b) -> a.lastReportMillis() >= b.lastReportMillis() ? a : b);
        }
      }
    }

    List<InstanceView> of(String app) {
      return List.copyOf(byApp.getOrDefault(app, Map.of()).values());
    }

    List<AppView> apps() {
      List<AppView> out = new ArrayList<>();
      byApp.forEach((app, instances) -> out.add(new AppView(app, List.copyOf(instances.values()))));
      return out;
    }
  }

  private static void addResources(Map<String, ResourceView> merged, List<ResourceView> more) {
    for (ResourceView r : more) {
      merged.merge(
          r.name(),
          r,
          (a, b) ->
              new ResourceView(
                  a.name(),
                  a.kind() == null || a.kind().isEmpty() ? b.kind() : a.kind(),
                  a.lastSecond() == null
                      ? b.lastSecond()
                      : b.lastSecond() == null
                          ? a.lastSecond()
                          : a.lastSecond().plus(b.lastSecond())));
    }
  }

  private static void addPoints(Map<Long, Point> merged, List<Point> more) {
    for (Point p : more) {
      merged.merge(p.startMillis(), p, Point::plus);
    }
  }

  private List<AppView> readApps(String body) throws JsonProcessingException {
    return read(body, "apps", AppView[].class);
  }

  /**
   * The array field {@code field} of a member's answer; throws when the answer is not JSON or has
   * no such array (the member is then named missing, {@link MemberCalls#ask}).
   */
  private <T> List<T> read(String body, String field, Class<T[]> type)
      throws JsonProcessingException {
    JsonNode node = json.readTree(body).path(field);
    if (!node.isArray()) {
      throw new IllegalArgumentException("no '" + field + "' list in the answer");
    }
    return List.of(json.treeToValue(node, type));
  }

  private static Map<String, Object> answer(
      String field, Object value, List<MemberCalls.Missing> missing) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put(field, value);
    out.put("missing", missing);
    return out;
  }

  private static List<MemberCalls.Missing> missing(
      List<MemberCalls.Missing> first, List<MemberCalls.Missing> second) {
    if (second.isEmpty()) {
      return first;
    }
    List<MemberCalls.Missing> all = new ArrayList<>(first);
    all.addAll(second);
    all.sort(Comparator.comparing(MemberCalls.Missing::address));
    return all;
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
