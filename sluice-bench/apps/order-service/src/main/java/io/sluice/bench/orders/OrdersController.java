package io.sluice.bench.orders;

import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The one business route: an order lookup that waits 3–7 ms (uniform, 5 ms mean) like a query. */
@RestController
public class OrdersController {
  static final long MIN_MICROS = 3_000;
  static final long SPREAD_MICROS = 4_000;

  @GetMapping("/orders/{id}")
  public Map<String, Object> order(@PathVariable("id") long id) {
    long micros = MIN_MICROS + ThreadLocalRandom.current().nextLong(SPREAD_MICROS + 1);
    LockSupport.parkNanos(micros * 1_000);
    return Map.of("id", id, "status", "PAID", "amount", 4200 + id % 100, "currency", "CNY");
  }

  /**
   * The same lookup on the routes {@link ManyRoutes} adds ({@code /orders1?id=7}), which are plain
   * paths so that Spring finds each by one map lookup instead of matching every pattern in turn.
   */
  public Map<String, Object> orderById(@RequestParam("id") long id) {
    return order(id);
  }
}
