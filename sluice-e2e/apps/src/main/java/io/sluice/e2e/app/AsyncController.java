package io.sluice.e2e.app;

import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;

/**
 * Routes answered asynchronously (Servlet async under Spring MVC): the handler returns at once and
 * the answer is written later, after {@code ms} milliseconds, from another thread.
 */
@RestController
class AsyncController {
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

  /** Spring runs the {@code Callable} on its async task executor. */
  @GetMapping("/async/callable")
  Callable<String> callable(@RequestParam("ms") long ms) {
    return () -> {
      Thread.sleep(ms);
      return "callable done";
    };
  }

  /** The application completes the {@code DeferredResult} from a thread of its own. */
  @GetMapping("/async/deferred")
  DeferredResult<String> deferred(@RequestParam("ms") long ms) {
    DeferredResult<String> result = new DeferredResult<>(30_000L);
    timer.schedule(() -> result.setResult("deferred done"), ms, TimeUnit.MILLISECONDS);
    return result;
  }
}
