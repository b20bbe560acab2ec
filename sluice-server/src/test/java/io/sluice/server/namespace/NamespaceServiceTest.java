package io.sluice.server.namespace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.feature.Fault;
import io.sluice.server.feature.ReplicatedWrites;
import io.sluice.server.replication.Replicator;
import io.sluice.server.testing.InlineReplicator;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class NamespaceServiceTest {
  private final NamespaceStore store = new NamespaceStore();
  private final InlineReplicator replicator = new InlineReplicator(List.of(store));
  private final ServerClock clock =
      new ServerClock() {
        @Override
        public long currentTimeMillis() {
          return 1_700_000_000_000L;
        }

        @Override
        public long nanoTime() {
          return 0;
        }
      };
  private final NamespaceService service =
      new NamespaceService(store, new ReplicatedWrites(replicator), clock, () -> "generated-id");

  @AfterEach
  void close() {
    replicator.close();
  }

  private static <T> T done(CompletableFuture<T> future) throws Exception {
    return future.get(5, TimeUnit.SECONDS);
  }

  @Test
  void createsANamespaceWithTheGivenIdAndTheAcceptingNodesTime() throws Exception {
    assertThat(done(service.create(" dev ", "Dev", "desc")))
        .isEqualTo(
            new NamespaceOutcome.Created(new Namespace("dev", "Dev", "desc", 1_700_000_000_000L)));
    assertThat(service.find("dev")).isNotNull();
    assertThat(service.exists("dev")).isTrue();
  }

  @Test
  void generatesAnIdWhenNoneIsGiven() throws Exception {
    assertThat(done(service.create("", "Generated", null)))
        .isInstanceOf(NamespaceOutcome.Created.class);
    assertThat(service.find("generated-id").name()).isEqualTo("Generated");
  }

  @Test
  void treatsEmptyAndPublicAsTheOnePublicNamespaceThatCannotChange() {
    assertThat(service.exists("")).isTrue();
    assertThat(service.exists("public")).isTrue();
    assertThat(service.find("public")).isNull();
    for (CompletableFuture<NamespaceOutcome> refused :
        List.of(
            service.create("public", "P", null),
            service.update("public", "P", null),
            service.update("", "P", null),
            service.delete("public"),
            service.delete(""))) {
      assertThatThrownBy(() -> refused.get(5, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(NamespaceException.class);
    }
    assertThat(store.size()).isZero();
  }

  @Test
  void refusesIdsAndNamesNacosWouldRefuse() {
    for (CompletableFuture<NamespaceOutcome> refused :
        List.of(
            service.create("has space", "N", null),
            service.create("slash/id", "N", null),
            service.create("x".repeat(129), "N", null),
            service.create("ok", "bad#name", null),
            service.create("ok", " ", null),
            service.create("ok", "N", "d".repeat(257)))) {
      assertThatThrownBy(() -> refused.get(5, TimeUnit.SECONDS))
          .hasCauseInstanceOf(NamespaceException.class);
    }
    assertThat(store.size()).isZero();
  }

  @Test
  void refusesANamespaceBeyondTheStoresBoundAsInvalidInputNotAsAnOutcome() throws Exception {
    NamespaceStore small = new NamespaceStore(1);
    try (InlineReplicator replicator = new InlineReplicator(List.of(small))) {
      NamespaceService door =
          new NamespaceService(small, new ReplicatedWrites(replicator), clock, () -> "unused");
      done(door.create("first", "First", null));

      assertThatThrownBy(() -> done(door.create("second", "Second", null)))
          .cause()
          .isInstanceOf(NamespaceException.class)
          .hasMessageContaining("delete one first")
          .extracting(refused -> ((NamespaceException) refused).fault())
          .isEqualTo(Fault.INVALID);
      assertThat(small.size()).isEqualTo(1);
    }
  }

  @Test
  void failsAWriteItsStateCouldNotReadAsTheServersFault() {
    // A replicator that loses the end of every command: apply cannot read what it gets.
    Replicator truncating =
        new Replicator() {
          @Override
          public CompletableFuture<Object> submit(String stateName, byte[] command) {
            return replicator.submit(stateName, Arrays.copyOf(command, 3));
          }

          @Override
          public boolean isReady() {
            return true;
          }

          @Override
          public CompletableFuture<Void> ready() {
            return CompletableFuture.completedFuture(null);
          }
        };
    NamespaceService door =
        new NamespaceService(store, new ReplicatedWrites(truncating), clock, () -> "unused");

    assertThatThrownBy(() -> done(door.create("dev", "Dev", null)))
        .cause()
        .isInstanceOf(NamespaceException.class)
        .extracting(failed -> ((NamespaceException) failed).fault())
        .isEqualTo(Fault.INTERNAL);
    assertThat(store.size()).isZero();
  }
}
