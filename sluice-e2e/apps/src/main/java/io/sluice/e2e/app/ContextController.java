package io.sluice.e2e.app;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.springframework.scheduling.annotation.Async;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Hands a task to one kind of executor and answers with the lane the task saw, so a test can check
 * that the request's governance context followed the work (and, on a request without a lane, that
 * nothing leaked from an earlier task on the same pooled thread).
 */
@RestController
class ContextController {
  // One thread each, so a later request's task runs on the very thread an earlier one used.
  private final ExecutorService pool = Executors.newFixedThreadPool(1);
  private final ScheduledExecutorService scheduled = Executors.newScheduledThreadPool(1);
  private final ForkJoinPool forkJoin = new ForkJoinPool(1);
  private final AsyncWorker asyncWorker;

  ContextController(AsyncWorker asyncWorker) {
    this.asyncWorker = asyncWorker;
  }

  @GetMapping("/ctx/{kind}")
  String laneSeenBy(@PathVariable("kind") String kind) throws Exception {
    switch (kind) {
      case "here":
        return LaneProbe.lane();
      case "thread-pool":
        return pool.submit(LaneProbe::lane).get(5, TimeUnit.SECONDS);
      case "thread-pool-execute":
        CompletableFuture<String> seen = new CompletableFuture<>();
        pool.execute(() -> seen.complete(LaneProbe.lane()));
        return seen.get(5, TimeUnit.SECONDS);
      case "scheduled":
        return scheduled.schedule(LaneProbe::lane, 1, TimeUnit.MILLISECONDS).get(5, TimeUnit.SECONDS);
      case "fork-join":
        return forkJoin.submit(LaneProbe::lane).get(5, TimeUnit.SECONDS);
      case "completable-future":
        return CompletableFuture.supplyAsync(LaneProbe::lane)
            .thenApplyAsync(first -> first + "/" + LaneProbe.lane())
            .get(5, TimeUnit.SECONDS);
      case "spring-async":
        return asyncWorker.lane().get(5, TimeUnit.SECONDS);
      case "virtual-thread":
        return onVirtualThread();
      case "fork":
        // Forked from the request thread (not a pool worker): a common-pool worker runs it.
        return new LaneTask().fork().get(5, TimeUnit.SECONDS);
      case "fork-join-task":
        // Handed to the pool as a ForkJoinTask, which the pool queues as it is.
        return forkJoin.submit(new LaneTask()).get(5, TimeUnit.SECONDS);
      case "new-thread":
        CompletableFuture<String> onThread = new CompletableFuture<>();
        new Thread(() -> onThread.complete(LaneProbe.lane()), "e2e-new-thread").start();
        return onThread.get(5, TimeUnit.SECONDS);
      case "origin":
        return LaneProbe.origin();
      default:
        throw new IllegalArgumentException("unknown executor kind " + kind);
    }
  }

  /** Java 21+ only; looked up reflectively because the app is compiled for Java 17. */
  private static String onVirtualThread() throws Exception {
    ExecutorService virtual;
    try {
      virtual =
          (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    } catch (NoSuchMethodException e) {
      return "unsupported";
    }
    try {
      return virtual.submit(LaneProbe::lane).get(5, TimeUnit.SECONDS);
    } finally {
      virtual.shutdown();
    }
  }

  /** A fork/join task that answers the lane of the thread that computes it. */
  static final class LaneTask extends RecursiveTask<String> {
    private static final long serialVersionUID = 1L;

    @Override
    protected String compute() {
      return LaneProbe.lane();
    }
  }

  @Component
  static class AsyncWorker {
    @Async
    public CompletableFuture<String> lane() {
      return CompletableFuture.completedFuture(LaneProbe.lane());
    }
  }
}
