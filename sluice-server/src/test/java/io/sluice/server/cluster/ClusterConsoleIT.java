package io.sluice.server.cluster;

import static io.sluice.server.protocol.http.OpenApiClient.params;
import static org.assertj.core.api.Assertions.assertThat;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.config.ConfigService;
import io.sluice.server.protocol.http.OpenApiClient;
import io.sluice.server.testing.BesideInProcessTests;
import io.sluice.server.testing.ClusterProcesses;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Auth in a cluster, as an operator meets it: three {@code sluice server --auth} processes started
 * together with no {@code SLUICE_ADMIN_PASSWORD}. The admin's generated password is printed once,
 * by one node, and it and the tokens it gets work on every node, because users and the token key
 * are replicated state; so does a user created on another node, and the official client logging in
 * with a password against the whole cluster.
 */
@BesideInProcessTests
class ClusterAuthIT {
  private static final String MARKER = "with the generated password: ";

  @Test
  void theBootstrappedAdminAndItsTokensWorkOnEveryNode() throws Exception {
    System.setProperty("JM.LOG.PATH", Path.of("target", "nacos-client-logs").toString());
    Path work = Files.createTempDirectory(Path.of("target"), "cluster-auth-it-");
    try (ClusterProcesses cluster =
        ClusterProcesses.start(work, 3, 0, List.of("--auth"), Map.of())) {
      List<String> printed = new ArrayList<>();
      for (int node = 0; node < 3; node++) {
        for (String line : cluster.process(node).output()) {
          if (line.contains(MARKER)) {
            printed.add(line.substring(line.indexOf(MARKER) + MARKER.length()).split("\\s+")[0]);
          }
        }
      }
      assertThat(printed).as("the generated password, printed by one node once").hasSize(1);
      String password = printed.get(0);

      OpenApiClient[] http = new OpenApiClient[3];
      Map<Integer, String> tokens = new HashMap<>();
      for (int node = 0; node < 3; node++) {
        http[node] = new OpenApiClient(cluster.baseUri(node).replace("/nacos", ""));
        assertThat(
                http[node]
                    .get("/nacos/v1/cs/configs", params("dataId", "a", "group", "g"))
                    .statusCode())
            .as("no token on node %d", node)
            .isEqualTo(401);
        tokens.put(node, login(http[node], "nacos", password));
      }
      // The token key is the cluster's: a token from one node is good on every other.
      for (int node = 0; node < 3; node++) {
        String foreign = tokens.get((node + 1) % 3);
        HttpResponse<String> users =
            http[node].get("/nacos/v1/auth/users", params("accessToken", foreign));
        assertThat(users.statusCode()).as(users.body()).isEqualTo(200);
      }

      HttpResponse<String> created =
          http[1].post(
              "/nacos/v1/auth/users",
              params(
                  "username", "dev-user", "password", "dev-pass-1", "accessToken", tokens.get(1)));
      assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
      // Logins read the node's applied state, which trails the write by the replication delay.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      int status;
      do {
        status =
            http[2]
                .post(
                    "/nacos/v1/auth/users/login",
                    params("username", "dev-user", "password", "dev-pass-1"))
                .statusCode();
      } while (status != 200 && System.nanoTime() < deadline && sleep());
      assertThat(status).as("the user created on node 1 logs in on node 2").isEqualTo(200);

      Properties properties = new Properties();
      properties.put(PropertyKeyConst.SERVER_ADDR, cluster.addresses());
      properties.put(PropertyKeyConst.USERNAME, "nacos");
      properties.put(PropertyKeyConst.PASSWORD, password);
      ConfigService client = NacosFactory.createConfigService(properties);
      try {
        assertThat(client.publishConfig("secured", "CLUSTER", "v1")).isTrue();
        for (int node = 0; node < 3; node++) {
          HttpResponse<String> read =
              http[node].get(
                  "/nacos/v1/cs/configs",
                  params("dataId", "secured", "group", "CLUSTER", "accessToken", tokens.get(node)));
          assertThat(read.body()).as("read on node %d", node).isEqualTo("v1");
        }
      } finally {
        client.shutDown();
      }

      // A client with an address server finds the cluster before it has logged in.
      assertThat(http[0].get("/nacos/serverlist", Map.of()).body().lines())
          .containsExactlyInAnyOrder(cluster.address(0), cluster.address(1), cluster.address(2));
    }
  }

  private static String login(OpenApiClient http, String user, String password) throws Exception {
    HttpResponse<String> login =
        http.post("/nacos/v1/auth/users/login", params("username", user, "password", password));
    assertThat(login.statusCode()).as(login.body()).isEqualTo(200);
    return login.body().replaceAll(".*\"accessToken\":\"([^\"]+)\".*", "$1");
  }

  private static boolean sleep() throws InterruptedException {
    Thread.sleep(100);
    return true;
  }
}
