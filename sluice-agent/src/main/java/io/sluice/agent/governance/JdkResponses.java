package io.sluice.agent.governance;

import io.sluice.agent.bootstrap.BlockVerdict;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSession;

/**
 * The JDK client's synthetic fallback response: the verdict's status, headers and body, the body
 * delivered through the caller's {@code BodyHandler} as the client would deliver a real one. Made
 * here, in the agent's class loader (whose parent, the platform loader, sees {@code
 * java.net.http}), only on the refusal path of a resource whose fallback asks for a response.
 */
final class JdkResponses {
  private JdkResponses() {}

  @SuppressWarnings({"unchecked", "rawtypes"})
  static HttpResponse<?> of(
      BlockVerdict verdict, HttpRequest request, HttpResponse.BodyHandler handler)
      throws Exception {
    HttpHeaders headers = headers(verdict);
    HttpResponse.ResponseInfo info =
        new HttpResponse.ResponseInfo() {
          @Override
          public int statusCode() {
            return verdict.status();
          }

          @Override
          public HttpHeaders headers() {
            return headers;
          }

          @Override
          public HttpClient.Version version() {
            return HttpClient.Version.HTTP_1_1;
          }
        };
    HttpResponse.BodySubscriber<?> subscriber = handler.apply(info);
    subscriber.onSubscribe(
        new Flow.Subscription() {
          @Override
          public void request(long n) {}

          @Override
          public void cancel() {}
        });
    subscriber.onNext(List.of(ByteBuffer.wrap(verdict.body())));
    subscriber.onComplete();
    Object body = subscriber.getBody().toCompletableFuture().get(10, TimeUnit.SECONDS);
    return new Synthetic<>(verdict.status(), request, headers, body);
  }

  private static HttpHeaders headers(BlockVerdict verdict) {
    Map<String, List<String>> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    String[] pairs = verdict.headers();
    for (int i = 0; i + 1 < pairs.length; i += 2) {
      map.computeIfAbsent(pairs[i], k -> new ArrayList<>()).add(pairs[i + 1]);
    }
    if (verdict.contentType() != null) {
      map.put("Content-Type", List.of(verdict.contentType()));
    }
    map.put("Content-Length", List.of(Integer.toString(verdict.body().length)));
    return HttpHeaders.of(map, (name, value) -> true);
  }

  private static final class Synthetic<T> implements HttpResponse<T> {
    private final int status;
    private final HttpRequest request;
    private final HttpHeaders headers;
    private final T body;

    Synthetic(int status, HttpRequest request, HttpHeaders headers, T body) {
      this.status = status;
      this.request = request;
      this.headers = headers;
      this.body = body;
    }

    @Override
    public int statusCode() {
      return status;
    }

    @Override
    public HttpRequest request() {
      return request;
    }

    @Override
    public Optional<HttpResponse<T>> previousResponse() {
      return Optional.empty();
    }

    @Override
    public HttpHeaders headers() {
      return headers;
    }

    @Override
    public T body() {
      return body;
    }

    @Override
    public Optional<SSLSession> sslSession() {
      return Optional.empty();
    }

    @Override
    public URI uri() {
      return request.uri();
    }

    @Override
    public HttpClient.Version version() {
      return HttpClient.Version.HTTP_1_1;
    }

    @Override
    public String toString() {
      return "(" + request.method() + " " + request.uri() + ") " + status + " (Sluice fallback)";
    }
  }
}
