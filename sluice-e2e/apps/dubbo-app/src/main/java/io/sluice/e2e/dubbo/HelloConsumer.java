package io.sluice.e2e.dubbo;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import org.apache.dubbo.common.constants.CommonConstants;
import org.apache.dubbo.config.annotation.DubboReference;
import org.apache.dubbo.rpc.RpcContext;
import org.apache.dubbo.rpc.RpcException;
import org.springframework.context.annotation.Profile;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The consumer: calls {@link HelloService} when asked over HTTP and says what came back. A call
 * that failed answers 503 with the {@code RpcException}'s message.
 */
@RestController
@Profile("consumer")
public class HelloConsumer {
  @DubboReference(check = false, timeout = 5000, retries = 0)
  private HelloService hello;

  @GetMapping("/ready")
  public String ready() {
    return "consumer";
  }

  @GetMapping("/hello")
  public ResponseEntity<String> hello(@RequestParam(defaultValue = "world") String name) {
    try {
      return ResponseEntity.ok(hello.hello(name));
    } catch (RpcException e) {
      return ResponseEntity.status(503).body(e.getMessage());
    }
  }

  @GetMapping("/slow")
  public ResponseEntity<String> slow(@RequestParam int millis) {
    try {
      return ResponseEntity.ok(hello.slow(millis));
    } catch (RpcException e) {
      return ResponseEntity.status(503).body(e.getMessage());
    }
  }

  /**
   * Which provider serves a call; with {@code dubboTag}, the call asks Dubbo's tag router for the
   * providers of that tag ({@code dubbo.tag}, as an application that uses Dubbo's tags does).
   */
  @GetMapping("/whoami")
  public ResponseEntity<String> whoami(@RequestParam(required = false) String dubboTag) {
    try {
      if (dubboTag != null) {
        RpcContext.getClientAttachment().setAttachment(CommonConstants.TAG_KEY, dubboTag);
      }
      return ResponseEntity.ok(hello.whoami());
    } catch (RpcException e) {
      return ResponseEntity.status(503).body(e.getMessage());
    } finally {
      // Not left on the request thread for its next call.
      RpcContext.getClientAttachment().removeAttachment(CommonConstants.TAG_KEY);
    }
  }

  /**
   * Calls {@code hello(name)} {@code calls} times at {@code perSecond} (open loop, one thread) and
   * counts the outcomes: {@code ok}, {@code refused} (an {@code RpcException} from Sluice, whose
   * first message is kept) and {@code failed}.
   */
  @GetMapping("/burst")
  public Map<String, Object> burst(
      @RequestParam(defaultValue = "world") String name,
      @RequestParam int calls,
      @RequestParam int perSecond) {
    long ok = 0;
    long refused = 0;
    long failed = 0;
    String refusal = null;
    String failure = null;
    long intervalNanos = 1_000_000_000L / perSecond;
    long start = System.nanoTime();
    for (int i = 0; i < calls; i++) {
      long due = start + i * intervalNanos;
      long wait = due - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
      try {
        hello.hello(name);
        ok++;
      } catch (RpcException e) {
        if (e.getMessage() != null && e.getMessage().contains("Sluice")) {
          refused++;
          refusal = refusal == null ? e.getMessage() : refusal;
        } else {
          failed++;
          failure = failure == null ? String.valueOf(e.getMessage()) : failure;
        }
      }
    }
    Map<String, Object> outcome = new TreeMap<>();
    outcome.put("ok", ok);
    outcome.put("refused", refused);
    outcome.put("failed", failed);
    outcome.put("refusal", refusal);
    outcome.put("failure", failure);
    outcome.put("millis", (System.nanoTime() - start) / 1_000_000);
    return outcome;
  }
}
