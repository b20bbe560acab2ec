package io.sluice.server.protocol.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.DefaultEventLoop;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Writes handed to a real event loop from another thread, batched with one flush per drain. */
class LoopBatchTest {
  private final EventExecutor loop = new DefaultEventLoop();
  private final AtomicInteger flushes = new AtomicInteger();
  private final LoopBatch batch = new LoopBatch(loop, flushes::incrementAndGet);

  @AfterEach
  void stop() {
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Test
  void aBurstHandedOverWhileTheLoopIsBusyRunsInOrderWithOneFlush() throws Exception {
    CountDownLatch busy = new CountDownLatch(1);
    loop.execute(() -> awaitQuietly(busy));
    List<Integer> ran = new ArrayList<>(); // the loop's alone
    List<Boolean> drainingSeen = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      int n = i;
      assertThat(
              batch.execute(
                  () -> {
                    ran.add(n);
                    drainingSeen.add(batch.draining());
                  }))
          .isTrue();
    }
    busy.countDown();
    loop.submit(() -> {}).sync(); // after the drain

    assertThat(loop.submit(() -> new ArrayList<>(ran)).get()).containsExactlyElementsOf(range(100));
    assertThat(drainingSeen).containsOnly(true);
    assertThat(flushes.get()).isEqualTo(1);
  }

  @Test
  void aTaskHandedOverWhileADrainRunsIsNotLeftBehind() throws Exception {
    CountDownLatch firstRunning = new CountDownLatch(1);
    CountDownLatch secondQueued = new CountDownLatch(1);
    CountDownLatch secondRan = new CountDownLatch(1);
    batch.execute(
        () -> {
          firstRunning.countDown();
          awaitQuietly(secondQueued);
        });
    firstRunning.await(5, TimeUnit.SECONDS);
    batch.execute(secondRan::countDown);
    secondQueued.countDown();

    assertThat(secondRan.await(5, TimeUnit.SECONDS)).isTrue();
    loop.submit(() -> {}).sync();
    assertThat(flushes.get()).isBetween(1, 2);
  }

  @Test
  void aTaskThatThrowsStillLetsTheRestRunAndFlush() throws Exception {
    CountDownLatch busy = new CountDownLatch(1);
    loop.execute(() -> awaitQuietly(busy));
    CountDownLatch afterRan = new CountDownLatch(1);
    batch.execute(
        () -> {
          throw new IllegalStateException("a write failed");
        });
    batch.execute(afterRan::countDown);
    busy.countDown();

    assertThat(afterRan.await(5, TimeUnit.SECONDS)).isTrue();
    loop.submit(() -> {}).sync();
    assertThat(flushes.get()).isEqualTo(1);
  }

  @Test
  void refusesOnceTheLoopHasShutDown() {
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();

    assertThat(batch.execute(() -> {})).isFalse();
  }

  private static List<Integer> range(int n) {
    List<Integer> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      all.add(i);
    }
    return all;
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
