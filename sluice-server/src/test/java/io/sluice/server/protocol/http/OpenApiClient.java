package io.sluice.server.protocol.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** Calls a server's HTTP Open API with the JDK's client, as a script or tool would. */
public final class OpenApiClient {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http;
  private final String base;

  /** A client speaking HTTP/1.1, as Nacos clients, curl and most scripts do. */
  public OpenApiClient(String base) {
    this(base, HttpClient.Version.HTTP_1_1);
  }

  public OpenApiClient(String base, HttpClient.Version version) {
    this.base = base;
    this.http =
        HttpClient.newBuilder().version(version).connectTimeout(Duration.ofSeconds(5)).build();
  }

  /** Query or form parameters in order: {@code params("dataId", "a", "group", "b")}. */
  public static Map<String, String> params(String... namesAndValues) {
    Map<String, String> params = new LinkedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      params.put(namesAndValues[i], namesAndValues[i + 1]);
    }
    return params;
  }

  public static String form(Map<String, String> params) {
    StringBuilder form = new StringBuilder();
    for (Map.Entry<String, String> param : params.entrySet()) {
      if (form.length() > 0) {
        form.append('&');
      }
      form.append(URLEncoder.encode(param.getKey(), StandardCharsets.UTF_8))
          .append('=')
          .append(URLEncoder.encode(param.getValue(), StandardCharsets.UTF_8));
    }
    return form.toString();
  }

  public HttpResponse<String> get(String path, Map<String, String> query, String... headers)
      throws IOException, InterruptedException {
    return send(request(path + "?" + form(query), headers).GET().build());
  }

  public HttpResponse<String> delete(String path, Map<String, String> query, String... headers)
      throws IOException, InterruptedException {
    return send(request(path + "?" + form(query), headers).DELETE().build());
  }

  public HttpResponse<String> post(String path, Map<String, String> body, String... headers)
      throws IOException, InterruptedException {
    return send(formRequest("POST", path, form(body), headers));
  }

  public HttpResponse<String> put(String path, Map<String, String> body, String... headers)
      throws IOException, InterruptedException {
    return send(formRequest("PUT", path, form(body), headers));
  }

  /** Publishes config {@code dataId} of {@code DEFAULT_GROUP} with {@code content}. */
  public HttpResponse<String> publishConfig(String dataId, String content)
      throws IOException, InterruptedException {
    return post(
        "/nacos/v1/cs/configs",
        params("dataId", dataId, "group", "DEFAULT_GROUP", "content", content));
  }

  /** Reads config {@code dataId} of {@code DEFAULT_GROUP}. */
  public HttpResponse<String> getConfig(String dataId) throws IOException, InterruptedException {
    return get("/nacos/v1/cs/configs", params("dataId", dataId, "group", "DEFAULT_GROUP"));
  }

  /**
   * The {@code hosts} of service {@code serviceName} (default group and namespace) as the instance
   * list answers them; fails unless the answer is 200.
   */
  public JsonNode hosts(String serviceName) throws IOException, InterruptedException {
    HttpResponse<String> answer =
        get("/nacos/v1/ns/instance/list", params("serviceName", serviceName));
    if (answer.statusCode() != 200) {
      throw new AssertionError(
          "instance list of " + serviceName + ": " + answer.statusCode() + " " + answer.body());
    }
    return JSON.readTree(answer.body()).path("hosts");
  }

  /** A POST whose body is sent exactly as given (malformed encodings, odd sizes). */
  public HttpResponse<String> postRaw(String path, String rawBody, String... headers)
      throws IOException, InterruptedException {
    return send(formRequest("POST", path, rawBody, headers));
  }

  public CompletableFuture<HttpResponse<String>> postAsync(
      String path, Map<String, String> body, String... headers) {
    return http.sendAsync(
        formRequest("POST", path, form(body), headers), HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest formRequest(String method, String path, String body, String... headers) {
    return request(path, headers)
        .header("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8")
        .method(method, HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
        .build();
  }

  private HttpRequest.Builder request(String pathAndQuery, String... headers) {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(URI.create(base + pathAndQuery)).timeout(Duration.ofSeconds(60));
    for (int i = 0; i < headers.length; i += 2) {
      builder.header(headers[i], headers[i + 1]);
    }
    return builder;
  }

  private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }
}
