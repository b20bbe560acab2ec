package io.sluice.e2e.app;

import java.net.HttpURLConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.HttpStatusCodeException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;

/**
 * Makes {@code n} outbound calls to {@code GET {base}/orders/{id}} with one HTTP client (Spring's
 * RestTemplate and RestClient, the JDK client, OkHttp, Apache HttpClient 5 or HttpURLConnection) and counts
 * how they ended, so a test can check client-side limits: "ok" (2xx), "blocked" (429 or an
 * exception naming Sluice) and "other".
 */
@RestController
class ClientController {
  private final RestTemplate restTemplate = new RestTemplate();
  private final RestClient restClient = RestClient.create();
  private final HttpClient jdkClient = HttpClient.newHttpClient();
  private final OkHttpClient okHttp = new OkHttpClient();
  private final CloseableHttpClient apache = HttpClients.createDefault();

  @GetMapping("/call/{client}")
  Map<String, Object> call(
      @PathVariable("client") String client,
      @RequestParam("base") String base,
      @RequestParam("n") int n) {
    int ok = 0;
    int blocked = 0;
    int other = 0;
    String lastError = "";
    long started = System.nanoTime();
    for (int i = 0; i < n; i++) {
      try {
        int status = callOnce(client, base, i);
        if (status / 100 == 2) {
          ok++;
        } else if (status == 429) {
          blocked++;
        } else {
          other++;
        }
      } catch (HttpStatusCodeException e) {
        if (e.getStatusCode().value() == 429) {
          blocked++;
        } else {
          other++;
          lastError = e.toString();
        }
      } catch (Exception e) {
        if (String.valueOf(e.getMessage()).contains("Sluice")
            || String.valueOf(e.getCause()).contains("Sluice")) {
          blocked++;
        } else {
          other++;
          lastError = e.toString();
        }
      }
    }
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("ok", ok);
    result.put("blocked", blocked);
    result.put("other", other);
    result.put("elapsedMs", (System.nanoTime() - started) / 1_000_000);
    result.put("lastError", lastError);
    return result;
  }

  /**
   * Calls {@code {base}/ctx/here} with one client and answers with the lane the callee saw, so a
   * test can check the outbound hook carried this request's lane to the next hop.
   */
  @GetMapping("/relay/{client}")
  String relay(@PathVariable("client") String client, @RequestParam("base") String base)
      throws Exception {
    String url = base + "/ctx/here";
    switch (client) {
      case "rest-template":
        return restTemplate.getForObject(url, String.class);
      case "rest-client":
        return restClient.get().uri(url).retrieve().body(String.class);
      case "jdk":
        return jdkClient
            .send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString())
            .body();
      case "okhttp":
        try (okhttp3.Response response =
            okHttp.newCall(new Request.Builder().url(url).build()).execute()) {
          return response.body().string();
        }
      case "okhttp-async":
        try (okhttp3.Response response = enqueued(new Request.Builder().url(url).build())) {
          return response.body().string();
        }
      case "apache":
        return apache.execute(new HttpGet(url), response -> EntityUtils.toString(response.getEntity()));
      case "url-connection":
        HttpURLConnection connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
        try {
          return new String(connection.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } finally {
          connection.disconnect();
        }
      default:
        throw new IllegalArgumentException("unknown client " + client);
    }
  }

  private int callOnce(String client, String base, int i) throws Exception {
    switch (client) {
      case "rest-template":
        return restTemplate
            .getForEntity(base + "/orders/{id}", String.class, i)
            .getStatusCode()
            .value();
      case "rest-client":
        return restClient
            .get()
            .uri(base + "/orders/{id}", i)
            .retrieve()
            .toEntity(String.class)
            .getStatusCode()
            .value();
      case "jdk":
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/orders/" + i)).build();
        return jdkClient.send(request, HttpResponse.BodyHandlers.ofString()).statusCode();
      case "okhttp":
        try (okhttp3.Response response =
            okHttp.newCall(new Request.Builder().url(base + "/orders/" + i).build()).execute()) {
          return response.code();
        }
      case "okhttp-async":
        try (okhttp3.Response response =
            enqueued(new Request.Builder().url(base + "/orders/" + i).build())) {
          return response.code();
        }
      case "apache":
        return apache.execute(
            new HttpGet(base + "/orders/" + i),
            response -> {
              EntityUtils.consume(response.getEntity());
              return response.getCode();
            });
      case "url-connection":
        HttpURLConnection connection =
            (HttpURLConnection) URI.create(base + "/orders/" + i).toURL().openConnection();
        try {
          int status = connection.getResponseCode();
          connection.getInputStream().readAllBytes();
          return status;
        } finally {
          connection.disconnect();
        }
      default:
        throw new IllegalArgumentException("unknown client " + client);
    }
  }

  /**
   * Sends {@code request} with {@code enqueue} (OkHttp's dispatcher thread answers the callback)
   * and waits for the outcome; a failure handed to {@code onFailure} is thrown as it came.
   */
  private okhttp3.Response enqueued(Request request) throws Exception {
    CompletableFuture<okhttp3.Response> outcome = new CompletableFuture<>();
    okHttp
        .newCall(request)
        .enqueue(
            new Callback() {
              @Override
              public void onResponse(Call call, okhttp3.Response response) {
                outcome.complete(response);
              }

              @Override
              public void onFailure(Call call, IOException e) {
                outcome.completeExceptionally(e);
              }
            });
    try {
      return outcome.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw (Exception) e.getCause();
    }
  }
}
