package io.sluice.bench.orders;

import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
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
}
