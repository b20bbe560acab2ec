package io.sluice.server.auth;

import static io.sluice.server.protocol.http.OpenApiClient.params;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.alibaba.nacos.api.config.ConfigService;
import com.alibaba.nacos.api.exception.NacosException;
import com.alibaba.nacos.api.naming.NamingService;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.protocol.http.OpenApiClient;
import io.sluice.server.testing.OfficialClients;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Auth as Nacos clients meet it: the official nacos-client 2.3.2 with its {@code username} and
 * {@code password} properties, Nacos's auth API over HTTP, and replays of Nacos's known auth
 * attacks, against a server started with auth on.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuthIT {
  private static final String ADMIN_PASSWORD = "admin-secret-1";

  /** Nacos's documented default token key, which its early 2.x releases shipped with. */
  private static final String NACOS_DEFAULT_KEY =
      "SecretKey012345678901234567890123456789012345678901234567890123456789";

  @TempDir static Path dataDir;

  private final ObjectMapper json = new ObjectMapper();
  private OfficialClients clients;
  private SluiceServer server;
  private OpenApiClient http;
  private String adminToken;

  @BeforeAll
  void startServer() throws Exception {
    clients =
        OfficialClients.start(
            dataDir,
            options ->
                options.authMode(ServerOptions.AuthMode.ON).initialAdminPassword(ADMIN_PASSWORD));
    server = clients.server();
    http = new OpenApiClient(server.httpAddress());
    adminToken = login("nacos", ADMIN_PASSWORD);
    // A user who may read and write the namespace "dev" only.
    asAdmin("/nacos/v1/auth/users", params("username", "dev-user", "password", "dev-pass-1"));
    asAdmin("/nacos/v1/auth/roles", params("role", "dev-role", "username", "dev-user"));
    asAdmin(
        "/nacos/v1/auth/permissions",
        params("role", "dev-role", "resource", "dev:*:*", "action", "rw"));
  }

  @AfterAll
  void stop() throws Exception {
    clients.close();
  }

  private void asAdmin(String path, Map<String, String> params) throws Exception {
    HttpResponse<String> reply = http.post(path, withToken(adminToken, params));
    assertThat(reply.statusCode()).as(reply.body()).isEqualTo(200);
  }

  private String login(String user, String password) throws Exception {
    HttpResponse<String> reply =
        http.post("/nacos/v1/auth/users/login?username=" + user, params("password", password));
    assertThat(reply.statusCode()).as(reply.body()).isEqualTo(200);
    return json.readTree(reply.body()).get("accessToken").asText();
  }

  private static Map<String, String> withToken(String token, Map<String, String> params) {
    Map<String, String> with = new LinkedHashMap<>(params);
    with.put("accessToken", token);
    return with;
  }

  @Test
  void loginAnswersATokenAndItsLifetimeAsTheOfficialClientReadsThem() throws Exception {
    HttpResponse<String> reply =
        http.post(
            "/nacos/v1/auth/users/login", params("username", "nacos", "password", ADMIN_PASSWORD));

    assertThat(reply.statusCode()).isEqualTo(200);
    JsonNode body = json.readTree(reply.body());
    assertThat(body.get("accessToken").asText()).contains(".");
    assertThat(body.get("tokenTtl").asLong()).isEqualTo(18_000);
    assertThat(body.get("globalAdmin").asBoolean()).isTrue();
    assertThat(reply.headers().firstValue("Authorization"))
        .hasValue("Bearer " + body.get("accessToken").asText());
    assertThat(
            http.post(
                    "/nacos/v1/auth/login", params("username", "nacos", "password", ADMIN_PASSWORD))
                .statusCode())
        .isEqualTo(200);
  }

  @Test
  void aWrongPasswordOrUnknownUserGetsNoToken() throws Exception {
    HttpResponse<String> wrong =
        http.post(
            "/nacos/v1/auth/users/login", params("username", "nacos", "password", "guess-123"));
    HttpResponse<String> unknown =
        http.post(
            "/nacos/v1/auth/users/login", params("username", "nobody", "password", "guess-123"));

    assertThat(wrong.statusCode()).isEqualTo(401);
    assertThat(unknown.statusCode()).isEqualTo(401);
    assertThat(wrong.body()).isEqualTo(unknown.body()).doesNotContain("accessToken");
  }

  @Test
  void theOfficialClientWithRightCredentialsPublishesAndReads() throws Exception {
    ConfigService config = clients.configService(null, "nacos", ADMIN_PASSWORD);
    NamingService naming = clients.namingService(null, "nacos", ADMIN_PASSWORD);

    assertThat(config.publishConfig("auth-ok.yaml", "DEFAULT_GROUP", "k: v")).isTrue();
    assertThat(config.getConfig("auth-ok.yaml", "DEFAULT_GROUP", 5000)).isEqualTo("k: v");
    naming.registerInstance("auth-ok-service", "127.0.0.1", 8080);
    assertThat(naming.getAllInstances("auth-ok-service")).hasSize(1);
  }

  @Test
  void theOfficialClientWithAWrongPasswordIsRefused() throws Exception {
    ConfigService config = clients.configService(null, "nacos", "wrong-password");
    NamingService naming = clients.namingService(null, "nacos", "wrong-password");

    assertThatThrownBy(() -> config.getConfig("auth-ok.yaml", "DEFAULT_GROUP", 5000))
        .isInstanceOfSatisfying(
            NacosException.class, e -> assertThat(e.getErrCode()).isEqualTo(403));
    assertThat(config.publishConfig("written-without-auth.yaml", "DEFAULT_GROUP", "x")).isFalse();
    assertThatThrownBy(() -> naming.registerInstance("intruder", "127.0.0.1", 9))
        .isInstanceOfSatisfying(
            NacosException.class, e -> assertThat(e.getErrCode()).isEqualTo(403));
    assertThat(
            server
                .config()
                .find(server.config().key("", "DEFAULT_GROUP", "written-without-auth.yaml")))
        .isNull();
  }

  @Test
  void aUserReadsAndWritesOnlyTheNamespacesItsRolesAllow() throws Exception {
    ConfigService inDev = clients.configService("dev", "dev-user", "dev-pass-1");
    ConfigService inProd = clients.configService("prod", "dev-user", "dev-pass-1");
    NamingService namingInProd = clients.namingService("prod", "dev-user", "dev-pass-1");
    NamingService namingInDev = clients.namingService("dev", "dev-user", "dev-pass-1");

    assertThat(inDev.publishConfig("app.yaml", "DEFAULT_GROUP", "env: dev")).isTrue();
    assertThat(inDev.getConfig("app.yaml", "DEFAULT_GROUP", 5000)).isEqualTo("env: dev");
    namingInDev.registerInstance("dev-service", "127.0.0.1", 8081);

    assertThat(inProd.publishConfig("app.yaml", "DEFAULT_GROUP", "env: hijacked")).isFalse();
    // The client answers a read it could not send (its connection still starting on a loaded
    // host) from its local snapshot without an error, so ask until the server has answered.
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThatThrownBy(() -> inProd.getConfig("app.yaml", "DEFAULT_GROUP", 5000))
                    .isInstanceOfSatisfying(
                        NacosException.class, e -> assertThat(e.getErrCode()).isEqualTo(403)));
    assertThatThrownBy(() -> namingInProd.registerInstance("prod-service", "127.0.0.1", 8082))
        .isInstanceOfSatisfying(
            NacosException.class, e -> assertThat(e.getErrCode()).isEqualTo(403));
    // Over HTTP the same user is held to the same namespaces.
    String token = login("dev-user", "dev-pass-1");
    assertThat(
            http.get(
                    "/nacos/v1/cs/configs",
                    withToken(
                        token,
                        params("dataId", "app.yaml", "group", "DEFAULT_GROUP", "tenant", "dev")))
                .body())
        .isEqualTo("env: dev");
    assertThat(
            http.get(
                    "/nacos/v1/cs/configs",
                    withToken(
                        token,
                        params("dataId", "app.yaml", "group", "DEFAULT_GROUP", "tenant", "prod")))
                .statusCode())
        .isEqualTo(403);
    assertThat(
            http.get(
                    "/nacos/v1/cs/configs",
                    withToken(token, params("dataId", "app.yaml", "group", "DEFAULT_GROUP")))
                .statusCode())
        .isEqualTo(403);
    // Who listens to a config (their addresses) is a read of that config too.
    assertThat(
            http.get(
                    "/nacos/v1/cs/configs/listener",
                    withToken(
                        token,
                        params("dataId", "app.yaml", "group", "DEFAULT_GROUP", "tenant", "dev")))
                .statusCode())
        .isEqualTo(200);
    assertThat(
            http.get(
                    "/nacos/v1/cs/configs/listener",
                    withToken(
                        token,
                        params("dataId", "app.yaml", "group", "DEFAULT_GROUP", "tenant", "prod")))
                .statusCode())
        .isEqualTo(403);
  }

  @Test
  void anHttpRequestWithoutATokenIsRefusedButProbesStayOpen() throws Exception {
    assertThat(
            http.get("/nacos/v1/cs/configs", params("dataId", "a", "group", "DEFAULT_GROUP"))
                .statusCode())
        .isEqualTo(401);
    assertThat(
            http.get("/nacos/v1/ns/instance/list", params("serviceName", "auth-ok-service"))
                .statusCode())
        .isEqualTo(401);
    assertThat(http.get("/nacos/v1/console/health/readiness", params()).statusCode())
        .isEqualTo(200);
    assertThat(http.get("/nacos/v1/console/health/liveness", params()).statusCode()).isEqualTo(200);
  }

  @Test
  void theTokenIsAcceptedAsParameterHeaderAndBearer() throws Exception {
    var query = params("dataId", "a", "group", "DEFAULT_GROUP");
    assertThat(http.get("/nacos/v1/cs/configs", withToken(adminToken, query)).statusCode())
        .isEqualTo(404);
    assertThat(http.get("/nacos/v1/cs/configs", query, "accessToken", adminToken).statusCode())
        .isEqualTo(404);
    assertThat(
            http.get("/nacos/v1/cs/configs", query, "Authorization", "Bearer " + adminToken)
                .statusCode())
        .isEqualTo(404);
  }

  @Test
  void theNacosServerUserAgentBypassIsRefused() throws Exception {
    // CVE-2021-29441: Nacos trusted any request whose User-Agent said Nacos-Server.
    HttpResponse<String> create =
        http.post(
            "/nacos/v1/auth/users",
            params("username", "ua-intruder", "password", "intruder-1"),
            "User-Agent",
            "Nacos-Server");
    HttpResponse<String> read =
        http.get(
            "/nacos/v1/auth/users",
            params("pageNo", "1", "pageSize", "10"),
            "User-Agent",
            "Nacos-Server");

    assertThat(create.statusCode()).isEqualTo(401);
    assertThat(read.statusCode()).isEqualTo(401);
    assertThat(server.auth().users()).doesNotContain("ua-intruder");
  }

  @Test
  void unauthenticatedUserCreationIsRefused() throws Exception {
    assertThat(
            http.post(
                    "/nacos/v1/auth/users",
                    params("username", "intruder", "password", "intruder-1"))
                .statusCode())
        .isEqualTo(401);
    assertThat(
            http.post("/nacos/v1/auth/users/admin", params("password", "intruder-1")).statusCode())
        .isEqualTo(401);
    // A logged-in user that is not the admin may not either.
    String token = login("dev-user", "dev-pass-1");
    assertThat(
            http.post(
                    "/nacos/v1/auth/users",
                    withToken(token, params("username", "intruder", "password", "intruder-1")))
                .statusCode())
        .isEqualTo(403);
    assertThat(server.auth().users()).doesNotContain("intruder");
  }

  @Test
  void aTokenSignedWithNacossOldDefaultKeyIsRefused() throws Exception {
    long exp = System.currentTimeMillis() / 1000 + 3600;
    for (byte[] key :
        new byte[][] {
          NACOS_DEFAULT_KEY.getBytes(StandardCharsets.UTF_8),
          // jjwt read the key as (lenient) Base64: the bytes of its first 68 characters.
          Base64.getDecoder().decode(NACOS_DEFAULT_KEY.substring(0, 68))
        }) {
      String forged = jwt("{\"alg\":\"HS256\"}", "{\"sub\":\"nacos\",\"exp\":" + exp + "}", key);
      assertThat(http.get("/nacos/v1/auth/users", withToken(forged, params())).statusCode())
          .isEqualTo(401);
      assertThat(
              http.get("/nacos/v1/auth/users", params(), "Authorization", "Bearer " + forged)
                  .statusCode())
          .isEqualTo(401);
    }
    String unsigned =
        b64("{\"alg\":\"none\"}") + "." + b64("{\"sub\":\"nacos\",\"exp\":" + exp + "}") + ".";
    assertThat(http.get("/nacos/v1/auth/users", withToken(unsigned, params())).statusCode())
        .isEqualTo(401);
  }

  @Test
  void theEmbeddedDatabaseQueryEndpointIsRefused() throws Exception {
    // Nacos's Derby ops endpoint ran SQL for anyone who reached it.
    var sql = params("sql", "select * from users");
    assertThat(http.get("/nacos/v1/cs/ops/derby", sql).statusCode()).isEqualTo(401);
    String token = login("dev-user", "dev-pass-1");
    assertThat(http.get("/nacos/v1/cs/ops/derby", withToken(token, sql)).statusCode())
        .isEqualTo(403);
    assertThat(http.get("/nacos/v1/cs/ops/derby", withToken(adminToken, sql)).statusCode())
        .isEqualTo(404);
  }

  @Test
  void theConnectionLoaderNeedsTheAdmin() throws Exception {
    String token = login("dev-user", "dev-pass-1");
    assertThat(http.get("/nacos/v2/core/loader/current", params()).statusCode()).isEqualTo(401);
    assertThat(http.get("/nacos/v2/core/loader/current", withToken(token, params())).statusCode())
        .isEqualTo(403);
    assertThat(
            http.get(
                    "/nacos/v2/core/loader/reloadClient",
                    withToken(token, params("connectionId", "x")))
                .statusCode())
        .isEqualTo(403);
    assertThat(
            http.get("/nacos/v2/core/loader/current", withToken(adminToken, params())).statusCode())
        .isEqualTo(200);
  }

  @Test
  void anAgentReportsTrafficWithAnyLoginWhileOnlyTheAdminReadsIt() throws Exception {
    String report =
        "{\"app\":\"auth-reporter\",\"instance\":\"1@host\",\"sentAt\":"
            + System.currentTimeMillis()
            + ",\"seen\":[{\"name\":\"GET /a\",\"kind\":\"Spring MVC route\"}],\"seconds\":[]}";
    assertThat(http.post("/nacos/v1/sluice/traffic", params("report", report)).statusCode())
        .isEqualTo(401);
    String token = login("dev-user", "dev-pass-1");
    HttpResponse<String> taken =
        http.post("/nacos/v1/sluice/traffic", withToken(token, params("report", report)));
    assertThat(taken.statusCode()).as(taken.body()).isEqualTo(200);

    assertThat(http.get("/nacos/v1/sluice/traffic/apps", withToken(token, params())).statusCode())
        .isEqualTo(403);
    HttpResponse<String> apps =
        http.get("/nacos/v1/sluice/traffic/apps", withToken(adminToken, params()));
    assertThat(apps.statusCode()).isEqualTo(200);
    assertThat(apps.body()).contains("auth-reporter");
  }

  @Test
  void aDeletedUsersTokenStopsWorking() throws Exception {
    assertThat(
            http.post(
                    "/nacos/v1/auth/users",
                    withToken(adminToken, params("username", "leaver", "password", "leaver-pass")))
                .statusCode())
        .isEqualTo(200);
    String token = login("leaver", "leaver-pass");
    assertThat(http.get("/nacos/v1/console/namespaces", withToken(token, params())).statusCode())
        .isEqualTo(200);

    assertThat(
            http.delete("/nacos/v1/auth/users", withToken(adminToken, params("username", "leaver")))
                .statusCode())
        .isEqualTo(200);

    assertThat(http.get("/nacos/v1/console/namespaces", withToken(token, params())).statusCode())
        .isEqualTo(401);
  }

  @Test
  void aUserChangesItsOwnPasswordButNotAnothers() throws Exception {
    assertThat(
            http.post(
                    "/nacos/v1/auth/users",
                    withToken(adminToken, params("username", "changer", "password", "first-pass")))
                .statusCode())
        .isEqualTo(200);
    String token = login("changer", "first-pass");

    assertThat(
            http.put(
                    "/nacos/v1/auth/users",
                    withToken(token, params("username", "nacos", "newPassword", "stolen-pass")))
                .statusCode())
        .isEqualTo(403);
    assertThat(
            http.put(
                    "/nacos/v1/auth/users",
                    withToken(token, params("username", "changer", "newPassword", "second-pass")))
                .statusCode())
        .isEqualTo(200);

    assertThat(login("changer", "second-pass")).isNotBlank();
    assertThat(login("nacos", ADMIN_PASSWORD)).isNotBlank();
  }

  @Test
  void theAdminCannotBeDeletedNorItsRoleGranted() throws Exception {
    assertThat(
            http.delete("/nacos/v1/auth/users", withToken(adminToken, params("username", "nacos")))
                .statusCode())
        .isEqualTo(400);
    assertThat(
            http.post(
                    "/nacos/v1/auth/roles",
                    withToken(adminToken, params("role", "ROLE_ADMIN", "username", "dev-user")))
                .statusCode())
        .isEqualTo(400);
  }

  @Test
  void listsUsersRolesAndPermissionsAsNacosPagesThem() throws Exception {
    JsonNode users =
        json.readTree(
            http.get(
                    "/nacos/v1/auth/users",
                    withToken(adminToken, params("pageNo", "1", "pageSize", "100")))
                .body());
    JsonNode roles =
        json.readTree(
            http.get("/nacos/v1/auth/roles", withToken(adminToken, params("username", "dev-user")))
                .body());
    JsonNode permissions =
        json.readTree(
            http.get(
                    "/nacos/v1/auth/permissions", withToken(adminToken, params("role", "dev-role")))
                .body());

    assertThat(users.get("pageItems").findValuesAsText("username")).contains("nacos", "dev-user");
    assertThat(users.toString()).doesNotContain("pbkdf2");
    assertThat(roles.get("totalCount").asInt()).isEqualTo(1);
    assertThat(roles.get("pageItems").get(0).get("role").asText()).isEqualTo("dev-role");
    assertThat(permissions.get("pageItems").get(0).get("resource").asText()).isEqualTo("dev:*:*");
    assertThat(permissions.get("pageItems").get(0).get("action").asText()).isEqualTo("rw");
  }

  @Test
  void passwordsAreNeverWrittenInPlainText() throws Exception {
    try (Stream<Path> files = Files.walk(dataDir)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        String content = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
        assertThat(content)
            .as(file.toString())
            .doesNotContain(ADMIN_PASSWORD)
            .doesNotContain("dev-pass-1");
      }
    }
  }

  private static String jwt(String header, String payload, byte[] key) throws Exception {
    String signed = b64(header) + "." + b64(payload);
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key, "HmacSHA256"));
    return signed
        + "."
        + Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString(mac.doFinal(signed.getBytes(StandardCharsets.US_ASCII)));
  }

  private static String b64(String s) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }
}
