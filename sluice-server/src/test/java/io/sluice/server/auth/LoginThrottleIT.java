package io.sluice.server.auth;

import static io.sluice.server.protocol.http.OpenApiClient.params;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.protocol.http.OpenApiClient;
import io.sluice.server.testing.FreePorts;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Logins per source address against a real server with auth on: a source that logs in too often is
 * answered 429 with the seconds to wait, right password or wrong, while another address still logs
 * in.
 */
class LoginThrottleIT {
  private static final String ADMIN_PASSWORD = "admin-secret-1";
  private static final String LOGIN = "/nacos/v1/auth/users/login";

  @TempDir Path dataDir;

  @Test
  void aSourceLoggingInTooOftenIsRefused429WhileOthersStillLogIn() throws Exception {
    try (SluiceServer server =
        FreePorts.startServer(
            ServerOptions.builder()
                .dataDir(dataDir)
                .authMode(ServerOptions.AuthMode.ON)
                .initialAdminPassword(ADMIN_PASSWORD)
                .maxLoginsPerMinute(4))) {
      assertThat(server.awaitReady(30, TimeUnit.SECONDS)).isTrue();
      OpenApiClient http = new OpenApiClient(server.httpAddress());

      // A burst of two (half the minute's four): one wrong guess, one right login.
      assertThat(login(http, "guess-123").statusCode()).isEqualTo(401);
      assertThat(login(http, ADMIN_PASSWORD).statusCode()).isEqualTo(200);

      HttpResponse<String> refused = login(http, ADMIN_PASSWORD);
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.body())
          .contains("too many logins from 127.0.0.1")
          .contains("max-logins-per-minute");
      assertThat(refused.headers().firstValue("Retry-After")).isPresent();

      String fromElsewhere = loginFrom("127.0.0.2", server.httpPort());
      assertThat(fromElsewhere).startsWith("HTTP/1.1 200").contains("accessToken");
    }
  }

  private static HttpResponse<String> login(OpenApiClient http, String password) throws Exception {
    return http.post(LOGIN, params("username", "nacos", "password", password));
  }

  /** A login over a socket whose source address is {@code source} (any of 127.0.0.0/8). */
  private static String loginFrom(String source, int port) throws Exception {
    String body = "username=nacos&password=" + ADMIN_PASSWORD;
    try (Socket socket =
        new Socket(InetAddress.getByName("127.0.0.1"), port, InetAddress.getByName(source), 0)) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST "
                  + LOGIN
                  + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                  + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: "
                  + body.length()
                  + "\r\n\r\n"
                  + body)
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
