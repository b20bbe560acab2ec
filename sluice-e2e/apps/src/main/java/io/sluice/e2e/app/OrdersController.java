package io.sluice.e2e.app;

import java.util.concurrent.atomic.AtomicLong;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The governed routes: a fast one with a path variable, and one whose latency tests can set. */
@RestController
class OrdersController {
  private final AtomicLong workDelayMs = new AtomicLong();
  private final AtomicLong workCalls = new AtomicLong();

  @GetMapping("/orders/{id}")
  String order(@PathVariable("id") String id) {
    return "order " + id;
  }

  /**
   * The same under a prefix the caller picks: a test gives each outbound HTTP client a route, and
   * so a resource and a one-second window, of its own.
   */
  @GetMapping("/clients/{client}/orders/{id}")
  String clientOrder(@PathVariable("id") String id) {
    return "order " + id;
  }

  @GetMapping("/work")
  String work() throws InterruptedException {
    workCalls.incrementAndGet();
    long delay = workDelayMs.get();
    if (delay > 0) {
      Thread.sleep(delay);
    }
    return "worked";
  }

  /** Test control: how long /work takes from now on (0 = immediate). */
  @PostMapping("/control/work-delay")
  String setWorkDelay(@RequestParam("ms") long ms) {
    workDelayMs.set(ms);
    return "delay " + ms;
  }

  /** Test control: how many times the /work handler ran (refused calls never reach it). */
  @GetMapping("/control/work-calls")
  long workCalls() {
    return workCalls.get();
  }

  @GetMapping("/fail")
  ResponseEntity<String> fail() {
    return ResponseEntity.status(500).body("failed on purpose");
  }
}
