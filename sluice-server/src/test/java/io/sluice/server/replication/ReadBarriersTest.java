package io.sluice.server.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class ReadBarriersTest {
  private final List<CompletableFuture<Void>> started = new ArrayList<>();
  private final ReadBarriers barriers =
      new ReadBarriers(
          () -> {
            CompletableFuture<Void> barrier = new CompletableFuture<>();
            started.add(barrier);
            return barrier;
          },
          Runnable::run);

  @Test
  void aReaderArrivingWhileABarrierIsInFlightWaitsForTheNextOne() {
    CompletableFuture<Void> first = barriers.join();
    CompletableFuture<Void> second = barriers.join();
    CompletableFuture<Void> third = barriers.join();
    assertThat(started).hasSize(1);

    started.get(0).complete(null);

    assertThat(first).isCompleted();
    assertThat(second).as("joined after the first barrier started").isNotCompleted();
    assertThat(third).isSameAs(second);
    assertThat(started).as("the readers that waited share one new barrier").hasSize(2);

    started.get(1).complete(null);
    assertThat(second).isCompleted();
  }

  @Test
  void aFailedBarrierFailsItsReadersAndTheNextStillStarts() {
    CompletableFuture<Void> first = barriers.join();
    CompletableFuture<Void> second = barriers.join();

    started.get(0).completeExceptionally(new ReplicatorNotReadyException("no leader"));

    assertThat(first).isCompletedExceptionally();
    assertThat(started).hasSize(2);
    started.get(1).complete(null);
    assertThat(second).isCompleted();
    assertThat(barriers.join()).as("idle again: a new barrier starts at once").isNotCompleted();
    assertThat(started).hasSize(3);
  }
}
