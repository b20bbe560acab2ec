package io.sluice.server.naming.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.alibaba.nacos.api.naming.NamingService;
import com.alibaba.nacos.api.naming.listener.Event;
import com.alibaba.nacos.api.naming.listener.NamingEvent;
import com.alibaba.nacos.api.naming.pojo.Instance;
import com.alibaba.nacos.api.naming.pojo.ListView;
import com.alibaba.nacos.api.naming.pojo.ServiceInfo;
import com.alibaba.nacos.client.naming.cache.ServiceInfoHolder;
import io.sluice.server.SluiceServer;
import io.sluice.server.protocol.grpc.Connection;
import io.sluice.server.testing.OfficialClients;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** The official nacos-client's naming API against a Sluice server started in the test. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NacosNamingClientIT {
  @TempDir static Path dataDir;

  private OfficialClients clients;
  private SluiceServer server;

  @BeforeAll
  void startServer() {
    clients = OfficialClients.start(dataDir);
    server = clients.server();
  }

  @AfterAll
  void stop() throws Exception {
    clients.close();
  }

  private NamingService client(String namespace) throws Exception {
    return clients.namingService(namespace);
  }

  private static Instance instance(String ip, int port, String cluster, Map<String, String> meta) {
    Instance instance = new Instance();
    instance.setIp(ip);
    instance.setPort(port);
    instance.setClusterName(cluster);
    instance.setMetadata(meta);
    return instance;
  }

  private static List<String> endpoints(List<Instance> instances) {
    return instances.stream()
        .map(i -> i.getIp() + ":" + i.getPort())
        .sorted()
        .collect(Collectors.toList());
  }

  @Test
  void registersQueriesAndDeregistersAnInstance() throws Exception {
    NamingService provider = client(null);
    NamingService consumer = client(null);

    provider.registerInstance("orders", "10.0.0.1", 8080);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(endpoints(consumer.getAllInstances("orders", false)))
                    .containsExactly("10.0.0.1:8080"));
    Instance found = consumer.getAllInstances("orders", false).get(0);
    assertThat(found.getInstanceId()).isEqualTo("10.0.0.1#8080#DEFAULT#DEFAULT_GROUP@@orders");
    assertThat(found.isHealthy()).isTrue();
    assertThat(found.getServiceName()).isEqualTo("DEFAULT_GROUP@@orders");

    provider.deregisterInstance("orders", "10.0.0.1", 8080);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(consumer.getAllInstances("orders", false)).isEmpty());
  }

  @Test
  void pushesEveryChangeToASubscriber() throws Exception {
    NamingService provider = client(null);
    NamingService consumer = client(null);
    List<List<String>> seen = new CopyOnWriteArrayList<>();
    consumer.subscribe(
        "payments",
        (Event event) -> {
          if (event instanceof NamingEvent naming) {
            seen.add(endpoints(naming.getInstances()));
          }
        });

    provider.registerInstance("payments", "10.0.0.2", 9090);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(seen).contains(List.of("10.0.0.2:9090")));

    NamingService second = client(null);
    second.registerInstance("payments", "10.0.0.3", 9090);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(seen).contains(List.of("10.0.0.2:9090", "10.0.0.3:9090")));

    provider.deregisterInstance("payments", "10.0.0.2", 9090);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> assertThat(seen.get(seen.size() - 1)).containsExactly("10.0.0.3:9090"));
  }

  @Test
  void dropsTheInstancesOfAClientThatGoesAwayAndTellsSubscribers() throws Exception {
    NamingService provider = client(null);
    NamingService consumer = client(null);
    List<List<String>> seen = new CopyOnWriteArrayList<>();
    consumer.subscribe(
        "inventory",
        event -> {
          if (event instanceof NamingEvent naming) {
            seen.add(endpoints(naming.getInstances()));
          }
        });
    provider.registerInstance("inventory", "10.0.0.4", 7070);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(seen).contains(List.of("10.0.0.4:7070")));

    clients.shutDown(provider);

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(seen.get(seen.size() - 1)).isEmpty());
    assertThat(consumer.getAllInstances("inventory", false)).isEmpty();
  }

  /**
   * A client drops any service list older than the one it holds ("out of date data received ...
   * new-t: 0"), so the time the server stamps a list with never goes back: not for a service nobody
   * registered (Nacos stamps it with the current time), not when its last instance leaves, and not
   * after the client reconnects and subscribes again to a service the server had dropped. Read from
   * the client's own cache of service lists.
   */
  @Test
  void neverSendsAClientAServiceListOlderThanTheOneItHolds() throws Exception {
    Set<String> before = connectionIds();
    NamingService consumer = client(null);
    consumer.subscribe("late-provider", event -> {});
    await().atMost(Duration.ofSeconds(10)).until(() -> held(consumer, "late-provider") != null);
    long unknown = held(consumer, "late-provider").getLastRefTime();
    assertThat(unknown).as("an unknown service is stamped with the time").isPositive();

    NamingService provider = client(null);
    provider.registerInstance("late-provider", "10.0.0.8", 8080);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> held(consumer, "late-provider").getHosts().size() == 1);
    long registered = held(consumer, "late-provider").getLastRefTime();
    assertThat(registered).isGreaterThan(unknown);

    clients.shutDown(provider);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> held(consumer, "late-provider").getHosts().isEmpty());
    long emptied = held(consumer, "late-provider").getLastRefTime();
    assertThat(emptied).isGreaterThan(registered);

    // The consumer's connection drops: the server forgets the empty service with its only
    // subscriber; the client reconnects and subscribes again.
    Set<String> consumerConnections = connectionIds();
    consumerConnections.removeAll(before);
    assertThat(consumerConnections).isNotEmpty();
    for (String id : consumerConnections) {
      server.connections().close(id, "test: make the client reconnect");
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> held(consumer, "late-provider").getLastRefTime() != emptied);
    assertThat(held(consumer, "late-provider").getLastRefTime()).isGreaterThan(emptied);
  }

  private Set<String> connectionIds() {
    Set<String> ids = new HashSet<>();
    for (Connection connection : server.connections().all()) {
      ids.add(connection.id());
    }
    return ids;
  }

  /** The service list the client holds for a service of the default group (its cache). */
  private static ServiceInfo held(NamingService client, String service) throws Exception {
    Field field = client.getClass().getDeclaredField("serviceInfoHolder");
    field.setAccessible(true);
    ServiceInfoHolder holder = (ServiceInfoHolder) field.get(client);
    for (ServiceInfo info : holder.getServiceInfoMap().values()) {
      if (info.getName().equals(service) && "DEFAULT_GROUP".equals(info.getGroupName())) {
        return info;
      }
    }
    return null;
  }

  @Test
  void batchRegistrationReplacesTheClientsInstances() throws Exception {
    NamingService provider = client(null);
    NamingService consumer = client(null);

    provider.batchRegisterInstance(
        "batch",
        "DEFAULT_GROUP",
        List.of(
            instance("10.0.1.1", 80, "DEFAULT", Map.of()),
            instance("10.0.1.2", 80, "DEFAULT", Map.of()),
            instance("10.0.1.3", 80, "DEFAULT", Map.of())));
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(endpoints(consumer.getAllInstances("batch", false)))
                    .containsExactly("10.0.1.1:80", "10.0.1.2:80", "10.0.1.3:80"));

    provider.batchDeregisterInstance(
        "batch", "DEFAULT_GROUP", List.of(instance("10.0.1.2", 80, "DEFAULT", Map.of())));
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(endpoints(consumer.getAllInstances("batch", false)))
                    .containsExactly("10.0.1.1:80", "10.0.1.3:80"));
  }

  @Test
  void keepsMetadataWeightAndClusterAsRegistered() throws Exception {
    NamingService provider = client(null);
    NamingService consumer = client(null);
    Instance registered =
        instance("10.0.2.1", 8081, "east", Map.of("version", "2.1", "zone", "z1"));
    registered.setWeight(3.5);
    provider.registerInstance("catalog", "GROUP_A", registered);

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> assertThat(consumer.getAllInstances("catalog", "GROUP_A", false)).hasSize(1));
    Instance found = consumer.getAllInstances("catalog", "GROUP_A", List.of("east"), false).get(0);
    assertThat(found.getMetadata()).containsEntry("version", "2.1").containsEntry("zone", "z1");
    assertThat(found.getWeight()).isEqualTo(3.5);
    assertThat(found.getClusterName()).isEqualTo("east");
    assertThat(consumer.getAllInstances("catalog", "GROUP_A", List.of("west"), false)).isEmpty();
  }

  @Test
  void keepsNamespacesAndGroupsApart() throws Exception {
    NamingService dev = client("dev");
    NamingService prod = client("prod");

    dev.registerInstance("search", "10.0.3.1", 80);
    prod.registerInstance("search", "GROUP_B", "10.0.3.2", 80);

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(endpoints(dev.getAllInstances("search", false)))
                  .containsExactly("10.0.3.1:80");
              assertThat(endpoints(prod.getAllInstances("search", "GROUP_B", false)))
                  .containsExactly("10.0.3.2:80");
            });
    assertThat(prod.getAllInstances("search", false)).isEmpty();
    ListView<String> services = dev.getServicesOfServer(1, 100);
    assertThat(services.getData()).contains("search");
    assertThat(prod.getServicesOfServer(1, 100, "GROUP_B").getData()).containsExactly("search");
  }

  @Test
  void registersPersistentInstancesOverGrpc() throws Exception {
    NamingService provider = client(null);
    Instance persistent = instance("127.0.0.1", server.httpPort(), "DEFAULT", Map.of("kind", "db"));
    persistent.setEphemeral(false);

    provider.registerInstance("database", persistent);

    NamingService consumer = client(null);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(consumer.getAllInstances("database", false))
                    .singleElement()
                    .satisfies(i -> assertThat(i.isEphemeral()).isFalse()));
    // A persistent instance outlives the client that registered it.
    clients.shutDown(provider);
    assertThat(
            server
                .naming()
                .instanceCount(
                    io.sluice.server.naming.ServiceKey.of("public", "DEFAULT_GROUP", "database")))
        .isEqualTo(1);

    consumer.deregisterInstance("database", persistent);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(consumer.getAllInstances("database", false)).isEmpty());
  }
}
