package io.sluice.agent.governance;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.sluice.agent.logging.AgentLog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpCookie;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.reactive.AbstractServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.SslInfo;
import org.springframework.http.support.Netty4HeadersAdapter;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import reactor.core.publisher.Flux;

/**
 * The gateway's headers written into a Spring reactive request where it stands (Spring 6.2, as the
 * agent is compiled; the end-to-end chain tests run it on Spring 6.1, 6.2 and 7.0).
 */
class ReactiveHeaderWriterTest {
  private final ByteArrayOutputStream logged = new ByteArrayOutputStream();
  private final ReactiveHeaderWriter writer =
      new ReactiveHeaderWriter(
          AgentLog.toStream(
              new PrintStream(logged, true, StandardCharsets.UTF_8), AgentLog.Level.INFO));

  /**
   * A request whose headers are Netty's, behind Spring's read-only view, as Reactor Netty's server
   * request ({@code ReactorServerHttpRequest}) builds them.
   */
  static class NettyBackedRequest extends AbstractServerHttpRequest {
    NettyBackedRequest(MultiValueMap<String, String> headers) {
      super(HttpMethod.GET, URI.create("http://127.0.0.1:8080/a/httpTest"), "", headers);
    }

    NettyBackedRequest(io.netty.handler.codec.http.HttpHeaders headers) {
      this(new Netty4HeadersAdapter(headers));
    }

    @Override
    protected MultiValueMap<String, HttpCookie> initCookies() {
      return new LinkedMultiValueMap<>();
    }

    @Override
    protected SslInfo initSslInfo() {
      return null;
    }

    @Override
    public <T> T getNativeRequest() {
      throw new UnsupportedOperationException();
    }

    @Override
    public Flux<DataBuffer> getBody() {
      return Flux.empty();
    }
  }

  private static DefaultHttpHeaders clientHeaders() {
    DefaultHttpHeaders headers = new DefaultHttpHeaders();
    headers.add("Host", "127.0.0.1:8080");
    headers.add("User-Agent", "Java-http-client/17");
    headers.add("Accept", "*/*");
    return headers;
  }

  @Test
  void writesTheHeaderIntoTheServersOwnHeadersBehindSpringsReadOnlyView() {
    DefaultHttpHeaders netty = clientHeaders();
    ServerHttpRequest request = new NettyBackedRequest(netty);

    assertThat(writer.write(request, "x-sluice-lane", "gray")).isTrue();

    assertThat(request.getHeaders().getFirst("x-sluice-lane")).isEqualTo("gray");
    assertThat(netty.get("x-sluice-lane")).as("Netty's own headers").isEqualTo("gray");
    assertThat(netty.get("Accept")).isEqualTo("*/*");
    assertThat(logged.toString(StandardCharsets.UTF_8)).isEmpty();
  }

  @Test
  void replacesEveryValueAClientSentForTheHeader() {
    DefaultHttpHeaders netty = clientHeaders();
    netty.add("X-Sluice-Origin", "c");
    netty.add("x-sluice-origin", "d");
    ServerHttpRequest request = new NettyBackedRequest(netty);

    assertThat(writer.write(request, "x-sluice-origin", "gateway")).isTrue();

    assertThat(request.getHeaders().get("x-sluice-origin")).containsExactly("gateway");
  }

  @Test
  void writesIntoTheCopyAnEarlierMutateMadeAndLeavesTheOriginalAlone() {
    DefaultHttpHeaders netty = clientHeaders();
    ServerHttpRequest original = new NettyBackedRequest(netty);
    ServerHttpRequest mutated = original.mutate().header("X-Chain-Entry", "gateway").build();

    assertThat(writer.write(mutated, "x-sluice-origin", "gateway")).isTrue();

    assertThat(mutated.getHeaders().getFirst("x-sluice-origin")).isEqualTo("gateway");
    assertThat(mutated.getHeaders().getFirst("X-Chain-Entry")).isEqualTo("gateway");
    // Spring 6.2's mutate() copied the headers: the copy is the request's own, the original's not.
    assertThat(netty.contains("x-sluice-origin")).isFalse();
  }

  @Test
  void aRequestThatAlreadyCarriesTheValueIsWrittenAgainToTheSameEffect() {
    // The callers read the header first and write only when it is missing; the writer does not
    // read it again.
    DefaultHttpHeaders netty = clientHeaders();
    netty.add("x-sluice-lane", "gray");
    ServerHttpRequest request = new NettyBackedRequest(netty);

    assertThat(writer.write(request, "x-sluice-lane", "gray")).isTrue();

    assertThat(netty.getAll("x-sluice-lane")).containsExactly("gray");
    CountingUnwritableHeaders unwritable = new CountingUnwritableHeaders();
    unwritable.delegate.add("x-sluice-lane", "gray");
    assertThat(writer.write(new UnwritableRequest(unwritable), "x-sluice-lane", "gray"))
        .as("headers that cannot be written answer a rebuild, carried or not")
        .isFalse();
    assertThat(unwritable.writes).hasValue(1);
  }

  @Test
  void asksForARebuildWhenTheHeadersCannotBeWrittenAndStopsTryingForThatClass() {
    CountingUnwritableHeaders headers = new CountingUnwritableHeaders();
    ServerHttpRequest request = new NettyBackedRequest(headers);

    CountingUnwritableHeaders another = new CountingUnwritableHeaders();

    assertThat(writer.write(request, "x-sluice-lane", "gray")).isFalse();
    assertThat(writer.write(request, "x-sluice-origin", "gateway")).isFalse();
    assertThat(writer.write(new NettyBackedRequest(another), "x-sluice-lane", "gray")).isFalse();

    assertThat(headers.writes).as("tried once for the class, then not again").hasValue(1);
    assertThat(another.writes).hasValue(0);
    String log = logged.toString(StandardCharsets.UTF_8);
    assertThat(log)
        .contains(NettyBackedRequest.class.getName() + " cannot be written in place")
        .contains("UnsupportedOperationException");
    assertThat(log.lines().count()).isEqualTo(1);
    // What the advice then does: the rebuilt request carries the header.
    ServerHttpRequest rebuilt = request.mutate().header("x-sluice-lane", "gray").build();
    assertThat(rebuilt.getHeaders().getFirst("x-sluice-lane")).isEqualTo("gray");
  }

  @Test
  void asksForARebuildOfARequestThatAnswersACopyOfItsHeaders() {
    DefaultHttpHeaders netty = clientHeaders();
    ServerHttpRequest request =
        new NettyBackedRequest(netty) {
          @Override
          public org.springframework.http.HttpHeaders getHeaders() {
            org.springframework.http.HttpHeaders copy = new org.springframework.http.HttpHeaders();
            copy.addAll(super.getHeaders());
            return copy;
          }
        };

    assertThat(writer.write(request, "x-sluice-lane", "gray")).isFalse();
    assertThat(logged.toString(StandardCharsets.UTF_8)).contains("did not show on the request");
  }

  /** A request class of its own whose headers a server will not let anyone change. */
  static final class UnwritableRequest extends NettyBackedRequest {
    UnwritableRequest(CountingUnwritableHeaders headers) {
      super(headers);
    }
  }

  @Test
  void requestsOfTwoClassesInTurnKeepTheirOwnVerdicts() {
    CountingUnwritableHeaders unwritable = new CountingUnwritableHeaders();
    for (int i = 0; i < 3; i++) {
      DefaultHttpHeaders netty = clientHeaders();
      assertThat(writer.write(new NettyBackedRequest(netty), "x-sluice-lane", "gray" + i))
          .as("a writable request after one of another class (round %d)", i)
          .isTrue();
      assertThat(netty.get("x-sluice-lane")).isEqualTo("gray" + i);
      assertThat(writer.write(new UnwritableRequest(unwritable), "x-sluice-lane", "gray" + i))
          .as("an unwritable request after a writable one (round %d)", i)
          .isFalse();
    }
    assertThat(unwritable.writes).as("tried once for its class, then not again").hasValue(1);
    assertThat(logged.toString(StandardCharsets.UTF_8).lines())
        .singleElement()
        .asString()
        .contains(UnwritableRequest.class.getName());
  }

  @Test
  void leavesAnythingButASpringReactiveRequestAlone() {
    assertThat(writer.write("not a request", "x-sluice-lane", "gray")).isFalse();
    assertThat(writer.write(null, "x-sluice-lane", "gray")).isFalse();
  }

  /** Headers a server will not let anyone change (as Jetty's), counting the attempts. */
  static final class CountingUnwritableHeaders extends LinkedMultiValueMap<String, String> {
    final LinkedMultiValueMap<String, String> delegate = new LinkedMultiValueMap<>();
    final AtomicInteger writes = new AtomicInteger();

    @Override
    public String getFirst(String key) {
      return delegate.getFirst(key);
    }

    @Override
    public List<String> get(Object key) {
      return delegate.get(key);
    }

    @Override
    public void set(String key, String value) {
      writes.incrementAndGet();
      throw new UnsupportedOperationException("read-only headers");
    }

    @Override
    public List<String> put(String key, List<String> value) {
      writes.incrementAndGet();
      throw new UnsupportedOperationException("read-only headers");
    }
  }
}
