package io.sluice.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Group commit against a fake Ratis: entries are held until the test applies them. */
class BatchProposerTest {
  private static final byte[] STATE = "kv".getBytes(StandardCharsets.UTF_8);
  private static final long PROPOSER = 77;

  private final List<Proposed> proposed = new ArrayList<>();

  private record Proposed(long sequence, List<String> commands, CompletableFuture<Void> reply) {}

  private BatchProposer proposer(ReplicationOptions.Builder options) {
    return new BatchProposer(
        PROPOSER,
        options.build(),
        Runnable::run,
        Runnable::run,
        (sequence, entry) -> {
          CompletableFuture<Void> reply = new CompletableFuture<>();
          proposed.add(new Proposed(sequence, commandsOf(entry), reply));
          return reply;
        },
        RatisReplicator::translateFailure);
  }

  @Test
  void sendsALoneSubmissionAtOnceAndGathersTheOnesThatArriveMeanwhile() {
    BatchProposer proposer = proposer(options().maxEntriesInFlight(1));

    CompletableFuture<Object> first = proposer.submit(STATE, bytes("a"));
    List<CompletableFuture<Object>> waiting = new ArrayList<>();
    for (String command : List.of("b", "c", "d")) {
      waiting.add(proposer.submit(STATE, bytes(command)));
    }

    assertThat(proposed).hasSize(1);
    assertThat(proposed.get(0).commands()).containsExactly("a");
    apply(proposer, proposed.get(0));
    assertThat(first).isCompletedWithValue("outcome-a");
    assertThat(proposed).hasSize(2);
    assertThat(proposed.get(1).commands())
        .as("one entry for all that queued")
        .containsExactly("b", "c", "d");
    apply(proposer, proposed.get(1));
    assertThat(waiting.get(2)).isCompletedWithValue("outcome-d");
    assertThat(proposer.entriesProposed()).isEqualTo(2);
    assertThat(proposer.commandsProposed()).isEqualTo(4);
    assertThat(proposer.pendingSubmissions()).isZero();
  }

  @Test
  void cutsBatchesAtTheCommandAndByteLimits() {
    BatchProposer proposer =
        proposer(options().maxEntriesInFlight(1).maxBatchCommands(3).maxBatchBytes(64));
    proposer.submit(STATE, bytes("first"));
    for (int i = 0; i < 5; i++) {
      proposer.submit(STATE, bytes("s" + i));
    }
    proposer.submit(STATE, bytes("x".repeat(100))); // larger than a batch: goes alone
    proposer.submit(STATE, bytes("last"));

    while (proposed.stream().anyMatch(p -> !p.reply().isDone())) {
      apply(proposer, proposed.stream().filter(p -> !p.reply().isDone()).findFirst().orElseThrow());
    }

    assertThat(proposed)
        .extracting(Proposed::commands)
        .containsExactly(
            List.of("first"),
            List.of("s0", "s1", "s2"),
            List.of("s3", "s4"),
            List.of("x".repeat(100)),
            List.of("last"));
  }

  @Test
  void failsTheBatchWhenRatisFailsIt() {
    BatchProposer proposer = proposer(options());
    CompletableFuture<Object> future = proposer.submit(STATE, bytes("a"));

    proposed.get(0).reply().completeExceptionally(new IllegalStateException("disk on fire"));

    assertThatThrownBy(future::join)
        .hasCauseInstanceOf(ReplicationException.class)
        .hasMessageContaining("outcome unknown");
    assertThat(proposer.pendingSubmissions()).isZero();
  }

  @Test
  void failsQueuedAndInFlightSubmissionsOnCloseAndRefusesNewOnes() {
    BatchProposer proposer = proposer(options().maxEntriesInFlight(1));
    CompletableFuture<Object> inFlight = proposer.submit(STATE, bytes("a"));
    CompletableFuture<Object> queued = proposer.submit(STATE, bytes("b"));

    proposer.close(new ReplicatorClosedException("closed"));

    assertThatThrownBy(inFlight::join).hasCauseInstanceOf(ReplicatorClosedException.class);
    assertThatThrownBy(queued::join).hasCauseInstanceOf(ReplicatorClosedException.class);
    assertThatThrownBy(() -> proposer.submit(STATE, bytes("c")).join())
        .hasCauseInstanceOf(ReplicatorClosedException.class);
    assertThat(proposer.pendingSubmissions()).isZero();
  }

  /**
   * A forwarded entry whose leader died holds no slot once the node learns of the new leader: the
   * writes behind it go at once, and it still completes its own submissions when applied.
   */
  @Test
  void aReleasedEntryLetsTheNextBatchGoAndStillCompletesItsSubmissions() {
    BatchProposer proposer = proposer(options().maxEntriesInFlight(1));
    CompletableFuture<Object> toOldLeader = proposer.submit(STATE, bytes("a"));
    CompletableFuture<Object> behind = proposer.submit(STATE, bytes("b"));
    assertThat(proposed).as("one slot, taken by a").hasSize(1);

    proposer.releaseSlot(proposed.get(0).sequence());

    assertThat(proposed).as("b goes without waiting for a").hasSize(2);
    assertThat(proposed.get(1).commands()).containsExactly("b");
    apply(proposer, proposed.get(1));
    assertThat(behind).isCompletedWithValue("outcome-b");
    assertThat(toOldLeader).isNotDone();
    assertThat(proposer.pendingSubmissions()).as("a is still pending").isEqualTo(1);

    apply(proposer, proposed.get(0)); // the resend reached the new leader after all
    assertThat(toOldLeader).isCompletedWithValue("outcome-a");
    assertThat(proposer.pendingSubmissions()).isZero();

    // Released, then completed: its slot is given back once, not twice.
    proposer.releaseSlot(proposed.get(0).sequence());
    proposer.submit(STATE, bytes("c"));
    proposer.submit(STATE, bytes("d"));
    assertThat(proposed).as("still one slot: d waits for c").hasSize(3);
  }

  @Test
  void ignoresBatchesItDidNotPropose() {
    BatchProposer proposer = proposer(options());
    CompletableFuture<Object> future = proposer.submit(STATE, bytes("a"));

    proposer.onApplied(PROPOSER + 1, proposed.get(0).sequence(), new Object[] {"someone else's"});

    assertThat(future).isNotDone();
  }

  private static ReplicationOptions.Builder options() {
    return ReplicationOptions.builder(java.nio.file.Path.of("unused"));
  }

  /** What Ratis does for an entry: apply (outcomes to the proposer), then reply. */
  private static void apply(BatchProposer proposer, Proposed entry) {
    Object[] outcomes = entry.commands().stream().map(c -> "outcome-" + c).toArray();
    proposer.onApplied(PROPOSER, entry.sequence(), outcomes);
    entry.reply().complete(null);
  }

  private static byte[] bytes(String command) {
    return command.getBytes(StandardCharsets.UTF_8);
  }

  private static List<String> commandsOf(byte[] entry) {
    CommandBatch.Reader reader = CommandBatch.read(ByteBuffer.wrap(entry));
    List<String> commands = new ArrayList<>();
    while (reader.next()) {
      commands.add(StandardCharsets.UTF_8.decode(reader.command()).toString());
    }
    return commands;
  }
}
