package io.sluice.bench.flow;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Resilience4j's side: an {@code AtomicRateLimiter} (no waiting) and a default circuit breaker,
 * called the way its decorators call them.
 */
final class Resilience4jSetup {

  private Resilience4jSetup() {}

  static RateLimiter rateLimiter(String name, int perSecond) {
    return RateLimiter.of(
        name,
        RateLimiterConfig.custom()
            .limitForPeriod(perSecond)
            .limitRefreshPeriod(Duration.ofSeconds(1))
            .timeoutDuration(Duration.ZERO)
            .build());
  }

  static CircuitBreaker circuitBreaker(String name) {
    return CircuitBreaker.of(name, CircuitBreakerConfig.ofDefaults());
  }

  /** What {@code CircuitBreaker.decorateSupplier} does around a call that succeeds. */
  static boolean callThroughBreaker(CircuitBreaker breaker) {
    if (!breaker.tryAcquirePermission()) {
      return false;
    }
    long start = breaker.getCurrentTimestamp();
    breaker.onSuccess(breaker.getCurrentTimestamp() - start, breaker.getTimestampUnit());
    return true;
  }

  static final TimeUnit NANOS = TimeUnit.NANOSECONDS;
}
