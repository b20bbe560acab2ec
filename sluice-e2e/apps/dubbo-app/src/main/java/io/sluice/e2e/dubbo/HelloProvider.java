package io.sluice.e2e.dubbo;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.dubbo.config.annotation.DubboService;
import org.apache.dubbo.rpc.RpcContext;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Profile;
import org.springframework.core.env.Environment;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/** The provider: serves {@link HelloService} and counts the calls it served, per argument. */
@DubboService
@RestController
@Profile("provider")
public class HelloProvider implements HelloService {
  private final Map<String, AtomicLong> served = new ConcurrentHashMap<>();
  private final HttpClient http = HttpClient.newHttpClient();
  private final String lane;
  private final Environment environment;

  public HelloProvider(@Value("${app.lane:base}") String lane, Environment environment) {
    this.lane = lane;
    this.environment = environment;
  }

  @Override
  public String hello(String name) {
    served.computeIfAbsent(name, n -> new AtomicLong()).incrementAndGet();
    return "hello " + name + " from " + RpcContext.getServerContext().getLocalPort();
  }

  @Override
  public String slow(int millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return "slept " + millis;
  }

  @Override
  public String whoami() {
    Map<String, Object> seen = new TreeMap<>();
    RpcContext.getServerAttachment()
        .getObjectAttachments()
        .forEach(
            (k, v) -> {
              if (k.startsWith("x-") || k.equals("remote.application")) {
                seen.put(k, v);
              }
            });
    return RpcContext.getServerContext().getLocalPort()
        + "|"
        + lane
        + "|"
        + seen
        + "|http-lane="
        + nextHopLane();
  }

  /** The lane header an HTTP call made while serving this call carries (its own /lane). */
  private String nextHopLane() {
    try {
      URI self =
          URI.create(
              "http://127.0.0.1:" + environment.getProperty("local.server.port") + "/lane");
      return http.send(HttpRequest.newBuilder(self).build(), HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (IOException e) {
      return "unreachable: " + e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  @GetMapping("/lane")
  public String lane(
      @RequestHeader(name = "x-sluice-lane", required = false, defaultValue = "") String lane) {
    return lane;
  }

  /** Calls served per {@code hello} argument since the last read, which resets them. */
  @GetMapping("/served")
  public Map<String, Long> takeServed() {
    Map<String, Long> counts = new TreeMap<>();
    served.forEach((name, count) -> counts.put(name, count.getAndSet(0)));
    return counts;
  }

  @GetMapping("/ready")
  public String ready() {
    return "provider";
  }
}
