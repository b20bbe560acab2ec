package io.sluice.bench.agent;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.governance.FlowGovernor;
import io.sluice.agent.governance.LaneGovernance;
import io.sluice.agent.logging.AgentLog;
import io.sluice.flow.FlowRegistry;
import java.net.URI;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpCookie;
import org.springframework.http.HttpMethod;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.server.reactive.AbstractServerHttpRequest;
import org.springframework.http.server.reactive.AbstractServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.SslInfo;
import org.springframework.http.support.Netty4HeadersAdapter;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.adapter.DefaultServerWebExchange;
import org.springframework.web.server.i18n.AcceptHeaderLocaleContextResolver;
import org.springframework.web.server.session.DefaultWebSessionManager;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What the gateway's two header-adding advices cost per request, on Spring's own request and
 * exchange (spring-web 6.2, Spring Boot 3.5's): a request whose headers are Netty's behind Spring's
 * read-only view, as Reactor Netty's server request builds them, carrying the seven headers an API
 * client typically sends. The request arrived untagged and the entry rules put it in the gray lane;
 * the gateway is named {@code gateway}.
 *
 * <ul>
 *   <li>{@code rebuiltTwice}: what the advice did before: the WebFlux entry rebuilt the request to
 *       add {@code x-sluice-lane} ({@code mutate().header().build()}), then the gateway route
 *       rebuilt it again with the outbound headers (lane and {@code x-sluice-origin}) and the
 *       exchange around it; each rebuild copies every header into a new map (Spring 6.2 and 7).
 *   <li>{@code writtenInPlace}: what it does now ({@code GovernanceHooks.writeRequestHeader}): the
 *       lane at the entry and the origin at the route go into Netty's headers where they stand; the
 *       route finds the lane there and skips it. Each operation then removes both again, so the
 *       next one starts from the same request (that removal is counted in its figures).
 * </ul>
 *
 * <pre>
 * java -jar sluice-bench/target/benchmarks.jar GatewayHeadersBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class GatewayHeadersBenchmark {
  private static final String LANE = SluiceContext.Headers.LANE;
  private static final String ORIGIN = SluiceContext.Headers.ORIGIN;

  private FlowGovernor governor;
  private DefaultHttpHeaders netty;
  private ServerHttpRequest request;
  private ServerWebExchange exchange;
  private SluiceContext grayRequest;

  /** A server request on Netty's headers, as Reactor Netty's {@code ReactorServerHttpRequest}. */
  static final class NettyBackedRequest extends AbstractServerHttpRequest {
    NettyBackedRequest(io.netty.handler.codec.http.HttpHeaders headers) {
      super(
          HttpMethod.GET,
          URI.create("http://127.0.0.1:18080/a/dubboTest"),
          "",
          new Netty4HeadersAdapter(headers));
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

  /** A response nothing is written to: the exchange needs one. */
  static final class UnwrittenResponse extends AbstractServerHttpResponse {
    UnwrittenResponse() {
      super(DefaultDataBufferFactory.sharedInstance);
    }

    @Override
    public <T> T getNativeResponse() {
      throw new UnsupportedOperationException();
    }

    @Override
    protected Mono<Void> writeWithInternal(Publisher<? extends DataBuffer> body) {
      return Mono.empty();
    }

    @Override
    protected Mono<Void> writeAndFlushWithInternal(
        Publisher<? extends Publisher<? extends DataBuffer>> body) {
      return Mono.empty();
    }

    @Override
    protected void applyStatusCode() {}

    @Override
    protected void applyHeaders() {}

    @Override
    protected void applyCookies() {}
  }

  @Setup(Level.Trial)
  public void setUp() {
    AgentLog log = AgentLog.toStream(System.err, AgentLog.Level.INFO);
    governor =
        new FlowGovernor(
            FlowRegistry.builder().build(),
            FlowGovernor.verdicts(429, 503, 1),
            name -> {},
            new LaneGovernance(null, log),
            log);
    governor.applicationNamed("gateway");
    netty = new DefaultHttpHeaders();
    netty.add("Host", "127.0.0.1:18080");
    netty.add("User-Agent", "Java-http-client/17.0.13");
    netty.add("Accept", "application/json");
    netty.add("Accept-Encoding", "gzip");
    netty.add("X-Request-Id", "3f2b8c1e-58d4-4f7a-9a57-0c1d2e3f4a5b");
    netty.add("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    netty.add("X-Forwarded-For", "10.0.0.7");
    request = new NettyBackedRequest(netty);
    exchange =
        new DefaultServerWebExchange(
            request,
            new UnwrittenResponse(),
            new DefaultWebSessionManager(),
            ServerCodecConfigurer.create(),
            new AcceptHeaderLocaleContextResolver());
    grayRequest = SluiceContext.of(null, "gray");
    // Both ways hand the route's filters a request with the same two headers.
    ServerHttpRequest before = rebuiltTwice().getRequest();
    writeInPlace();
    for (String header : new String[] {LANE, ORIGIN}) {
      String rebuilt = before.getHeaders().getFirst(header);
      String inPlace = request.getHeaders().getFirst(header);
      if (rebuilt == null || !rebuilt.equals(inPlace)) {
        throw new IllegalStateException(header + ": " + rebuilt + " rebuilt, " + inPlace);
      }
    }
    netty.remove(LANE);
    netty.remove(ORIGIN);
  }

  /** Before: the entry and the route each rebuild the request. */
  @Benchmark
  public ServerWebExchange rebuiltTwice() {
    SluiceContext previous = SluiceContext.replace(grayRequest);
    try {
      // ServerEntryAdvice: the lane the entry rules chose, onto the untagged request.
      ServerHttpRequest entered = request.mutate().header(LANE, grayRequest.lane()).build();
      // FilteringWebHandlerAdvice: the outbound headers, onto the request the route got.
      String[] headers = governor.outboundHeaders();
      ServerHttpRequest.Builder proxied = entered.mutate();
      for (int i = 0; i + 1 < headers.length; i += 2) {
        proxied.header(headers[i], headers[i + 1]);
      }
      return exchange.mutate().request(proxied.build()).build();
    } finally {
      SluiceContext.restore(previous);
    }
  }

  /** Now: both headers written once into the request's own headers, nothing copied. */
  @Benchmark
  public ServerWebExchange writtenInPlace() {
    writeInPlace();
    netty.remove(LANE);
    netty.remove(ORIGIN);
    return exchange;
  }

  private void writeInPlace() {
    SluiceContext previous = SluiceContext.replace(grayRequest);
    try {
      if (!governor.writeRequestHeader(request, LANE, grayRequest.lane())) {
        throw new IllegalStateException("the lane was not written in place");
      }
      String[] headers = governor.outboundHeaders();
      for (int i = 0; i + 1 < headers.length; i += 2) {
        if (!governor.writeRequestHeader(request, headers[i], headers[i + 1])) {
          throw new IllegalStateException(headers[i] + " was not written in place");
        }
      }
    } finally {
      SluiceContext.restore(previous);
    }
  }
}
