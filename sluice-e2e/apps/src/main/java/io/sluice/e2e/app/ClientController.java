package io.sluice.e2e.app;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.HttpStatusCodeException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/**
 * Makes outbound calls with one HTTP client at a time (Spring's RestTemplate, RestClient and
 * WebClient, the JDK client with {@code send} and {@code sendAsync}, OkHttp with {@code execute}
 * and {@code enqueue}, Apache HttpClient 5 classic and async, Apache HttpClient 4 and
 * HttpURLConnection), so a test can check what the agent does on each: client-side limits
 * ({@code /call}), the lane and origin carried to the next hop ({@code /relay}), a refused call's
 * synthetic fallback response ({@code /fetch}), and CHAIN rules, which apply to a call only through
 * the route it is made from ({@code /via/a}, {@code /via/b}).
 */
@RestController
class ClientController {
  private final RestTemplate restTemplate = new RestTemplate();
  private final RestClient restClient = RestClient.create();
  private final WebClient webClient = WebClient.create();
  private final HttpClient jdkClient = HttpClient.newHttpClient();
  private final OkHttpClient okHttp = new OkHttpClient();
  private final CloseableHttpClient apache = HttpClients.createDefault();
  private final CloseableHttpAsyncClient apacheAsync = HttpAsyncClients.createDefault();
  private final org.apache.http.impl.client.CloseableHttpClient apache4 =
      org.apache.http.impl.client.HttpClients.createDefault();

  ClientController() {
    apacheAsync.start();
  }

  /** A response as the application saw it. */
  record Answer(int status, String body) {}

  /**
   * Calls {@code GET {base}/orders/{id}} {@code n} times and counts how the calls ended: "ok"
   * (2xx), "blocked" (429, or an exception naming Sluice) and "other".
   */
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
      } catch (Exception e) {
        if (refusedBySluice(e)) {
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
   * Calls {@code {base}/ctx/here} (or {@code to}) with one client and answers with what the callee
   * saw, so a test can check the outbound hook carried this request's lane (or this application's
   * name, {@code /ctx/origin}) to the next hop.
   */
  @GetMapping("/relay/{client}")
  String relay(
      @PathVariable("client") String client,
      @RequestParam("base") String base,
      @RequestParam(name = "to", defaultValue = "/ctx/here") String to)
      throws Exception {
    return fetch(client, base + to).body();
  }

  /**
   * Calls {@code {base}/orders/7} with one client and answers {@code status body}, or {@code
   * refused} when the client threw Sluice's refusal: a refused call with a synthetic fallback
   * response answers that response.
   */
  @GetMapping("/fetch/{client}")
  String fetchOrder(@PathVariable("client") String client, @RequestParam("base") String base) {
    try {
      Answer answer = fetch(client, base + "/orders/7");
      return answer.status() + " " + answer.body();
    } catch (Exception e) {
      return refusedBySluice(e) ? "refused" : "failed: " + e;
    }
  }

  /** Calls {@code GET {base}/orders/{id}} from this route: CHAIN rules name it as the entrance. */
  @GetMapping("/via/a")
  String viaA(@RequestParam("base") String base) {
    return viaRoute(base);
  }

  /** The same call from another route. */
  @GetMapping("/via/b")
  String viaB(@RequestParam("base") String base) {
    return viaRoute(base);
  }

  private String viaRoute(String base) {
    try {
      return Integer.toString(callOnce("rest-template", base, 1));
    } catch (Exception e) {
      return refusedBySluice(e) ? "refused" : "failed: " + e;
    }
  }

  private static boolean refusedBySluice(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (String.valueOf(t.getMessage()).contains("Sluice refused")) {
        return true;
      }
    }
    return false;
  }

  private int callOnce(String client, String base, int i) throws Exception {
    try {
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
        case "webclient":
          ResponseEntity<Void> entity =
              webClient.get().uri(base + "/orders/{id}", i).retrieve().toBodilessEntity().block();
          return entity.getStatusCode().value();
        default:
          return fetch(client, base + "/orders/" + i).status();
      }
    } catch (HttpStatusCodeException e) {
      return e.getStatusCode().value();
    } catch (WebClientResponseException e) {
      return e.getStatusCode().value();
    }
  }

  /** One GET of {@code url} with {@code client}: the status and body the application got. */
  private Answer fetch(String client, String url) throws Exception {
    switch (client) {
      case "rest-template":
        ResponseEntity<String> template = restTemplate.getForEntity(url, String.class);
        return new Answer(template.getStatusCode().value(), template.getBody());
      case "rest-client":
        ResponseEntity<String> rest = restClient.get().uri(url).retrieve().toEntity(String.class);
        return new Answer(rest.getStatusCode().value(), rest.getBody());
      case "webclient":
        ResponseEntity<String> reactive =
            webClient.get().uri(url).retrieve().toEntity(String.class).block();
        return new Answer(reactive.getStatusCode().value(), reactive.getBody());
      case "jdk":
        HttpResponse<String> jdk =
            jdkClient.send(
                HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString());
        return new Answer(jdk.statusCode(), jdk.body());
      case "jdk-async":
        HttpResponse<String> async =
            unwrap(
                jdkClient.sendAsync(
                    HttpRequest.newBuilder(URI.create(url)).build(),
                    HttpResponse.BodyHandlers.ofString()));
        return new Answer(async.statusCode(), async.body());
      case "okhttp":
        try (okhttp3.Response response =
            okHttp.newCall(new Request.Builder().url(url).build()).execute()) {
          return new Answer(response.code(), response.body().string());
        }
      case "okhttp-async":
        try (okhttp3.Response response = enqueued(new Request.Builder().url(url).build())) {
          return new Answer(response.code(), response.body().string());
        }
      case "apache":
        return apache.execute(
            new HttpGet(url),
            response ->
                new Answer(
                    response.getCode(),
                    response.getEntity() == null ? "" : EntityUtils.toString(response.getEntity())));
      case "apache-async":
        SimpleHttpResponse simple =
            unwrap(apacheAsync.execute(SimpleRequestBuilder.get(url).build(), null));
        return new Answer(simple.getCode(), simple.getBodyText());
      case "apache4":
        try (org.apache.http.client.methods.CloseableHttpResponse response =
            apache4.execute(new org.apache.http.client.methods.HttpGet(url))) {
          return new Answer(
              response.getStatusLine().getStatusCode(),
              org.apache.http.util.EntityUtils.toString(response.getEntity()));
        }
      case "url-connection":
        HttpURLConnection connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
        try {
          int status = connection.getResponseCode();
          return new Answer(
              status,
              new String(connection.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        } finally {
          connection.disconnect();
        }
      default:
        throw new IllegalArgumentException("unknown client " + client);
    }
  }

  /** The future's value; a failure is thrown as it came. */
  private static <T> T unwrap(Future<T> future) throws Exception {
    try {
      return future.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
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
    return unwrap(outcome);
  }
}
