package io.sluice.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.server.testing.EngineThreads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The replicator against a real one-peer Ratis group on a temporary directory. */
class RatisReplicatorTest {
  private static final long TIMEOUT_SECONDS = 30;

  @TempDir Path dataDir;

  static ReplicationOptions.Builder standalone(Path dataDir) {
    // Port 0: tests run side by side; a one-peer group never dials its own address.
    return ReplicationOptions.builder(dataDir).self(new ReplicationPeer("n1", "127.0.0.1", 0));
  }

  static RatisReplicator startReady(ReplicationOptions options, ReplicatedState... states)
      throws Exception {
    RatisReplicator replicator = RatisReplicator.start(options, List.of(states));
    replicator.ready().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    return replicator;
  }

  static Object await(CompletableFuture<Object> future) throws Exception {
    return future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  @Test
  void appliesACommandAndHandsBackItsOutcome() throws Exception {
    KeyValueState kv = new KeyValueState();
    try (RatisReplicator replicator = startReady(standalone(dataDir).build(), kv)) {
      assertThat(replicator.isReady()).isTrue();

      assertThat(await(replicator.submit("kv", KeyValueState.put("a", "1")))).isNull();
      assertThat(kv.get("a")).as("read-your-writes").isEqualTo("1");
      assertThat(await(replicator.submit("kv", KeyValueState.put("a", "2")))).isEqualTo("1");
      assertThat(await(replicator.submit("kv", KeyValueState.unknownOp())))
          .as("a bad command gets the state's error outcome")
          .isEqualTo("error: unknown op 99");
    }
  }

  @Test
  void routesCommandsToTheStateTheyNameAndKeepsEachStatesSnapshotSection() throws Exception {
    KeyValueState config = new KeyValueState("config");
    KeyValueState namespaces = new KeyValueState("namespaces");
    try (RatisReplicator replicator = startReady(standalone(dataDir).build(), config, namespaces)) {
      await(replicator.submit("config", KeyValueState.put("k", "config-value")));
      await(replicator.submit("namespaces", KeyValueState.put("k", "namespace-value")));
    }
    KeyValueState configAgain = new KeyValueState("config");
    KeyValueState namespacesAgain = new KeyValueState("namespaces");
    try (RatisReplicator replicator =
        startReady(standalone(dataDir).build(), configAgain, namespacesAgain)) {
      assertThat(configAgain.get("k")).isEqualTo("config-value");
      assertThat(namespacesAgain.get("k")).isEqualTo("namespace-value");
    }
  }

  @Test
  void gathersConcurrentSubmissionsIntoFewerRaftEntries() throws Exception {
    KeyValueState kv = new KeyValueState();
    int threads = 16;
    int perThread = 300;
    try (RatisReplicator replicator = startReady(standalone(dataDir).build(), kv)) {
      List<CompletableFuture<Object>> acks = submitTogether(threads, perThread, replicator);
      CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new))
          .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);

      ReplicationStats stats = replicator.stats();
      System.out.println("group commit: " + stats);
      assertThat(kv.size()).isEqualTo(threads * perThread);
      assertThat(stats.commandsProposed()).isEqualTo(threads * perThread);
      assertThat(stats.entriesProposed())
          .as("commands per entry > 2 means concurrent writes shared entries")
          .isLessThan(stats.commandsProposed() / 2);
    }
  }

  @Test
  void appliesEachSubmittersCommandsInTheOrderSubmitted() throws Exception {
    KeyValueState kv = new KeyValueState();
    int threads = 8;
    int perThread = 200;
    try (RatisReplicator replicator = startReady(standalone(dataDir).build(), kv)) {
      CountDownLatch start = new CountDownLatch(1);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<List<CompletableFuture<Object>>>> perSubmitter = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        String key = "list-" + t;
        perSubmitter.add(
            pool.submit(
                () -> {
                  start.await();
                  List<CompletableFuture<Object>> acks = new ArrayList<>();
                  // No waiting between submissions: order must come from the replicator alone.
                  for (int i = 0; i < perThread; i++) {
                    acks.add(replicator.submit("kv", KeyValueState.append(key, "" + i)));
                  }
                  return acks;
                }));
      }
      start.countDown();
      for (Future<List<CompletableFuture<Object>>> submitter : perSubmitter) {
        List<CompletableFuture<Object>> acks = submitter.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        for (int i = 0; i < acks.size(); i++) {
          assertThat(await(acks.get(i))).as("list size after append %d", i).isEqualTo(i + 1);
        }
      }
      pool.shutdown();
      List<String> expected = IntStream.range(0, perThread).mapToObj(i -> "" + i).toList();
      for (int t = 0; t < threads; t++) {
        assertThat(kv.list("list-" + t)).containsExactlyElementsOf(expected);
      }
    }
  }

  @Test
  void refusesSubmissionsBeyondThePendingLimitAtOnce() throws Exception {
    KeyValueState kv = new KeyValueState();
    HeldExecutor proposer = new HeldExecutor();
    ReplicationOptions options =
        standalone(dataDir).maxPendingSubmissions(10).proposerExecutor(proposer).build();
    try (RatisReplicator replicator = startReady(options, kv)) {
      List<CompletableFuture<Object>> accepted = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        accepted.add(replicator.submit("kv", KeyValueState.put("k" + i, "v")));
      }
      CompletableFuture<Object> refused = replicator.submit("kv", KeyValueState.put("k10", "v"));

      assertThat(refused).as("the 11th fails fast while 10 are pending").isCompletedExceptionally();
      assertThatThrownBy(refused::join).hasCauseInstanceOf(ReplicatorOverloadedException.class);
      assertThat(accepted).allMatch(future -> !future.isDone());

      proposer.release();
      for (CompletableFuture<Object> future : accepted) {
        await(future);
      }
      assertThat(kv.size()).isEqualTo(10);
      assertThat(await(replicator.submit("kv", KeyValueState.put("k10", "v"))))
          .as("room again once the pending ones completed")
          .isNull();
    }
  }

  @Test
  void failsOnlyTheCommandWhoseApplyThrowsAndKeepsReplicating() throws Exception {
    KeyValueState kv = new KeyValueState();
    try (RatisReplicator replicator = startReady(standalone(dataDir).build(), kv)) {
      CompletableFuture<Object> before = replicator.submit("kv", KeyValueState.put("a", "1"));
      CompletableFuture<Object> throwing = replicator.submit("kv", KeyValueState.throwing());
      CompletableFuture<Object> after = replicator.submit("kv", KeyValueState.put("b", "2"));

      assertThatThrownBy(() -> await(throwing))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(StateApplyException.class)
          .hasMessageContaining("'kv'")
          .hasRootCauseMessage("this command always throws");
      assertThat(await(before)).isNull();
      assertThat(await(after)).isNull();
      assertThat(kv.get("b")).isEqualTo("2");
      assertThat(replicator.isReady()).isTrue();
      assertThat(replicator.stats().commandsFailed()).isEqualTo(1);
    }
  }

  @Test
  void stopsAtACommandOfANewerFormatInsteadOfSkippingIt() throws Exception {
    KeyValueState kv = new KeyValueState();
    try (RatisReplicator replicator = startReady(standalone(dataDir).build(), kv)) {
      assertThat(await(replicator.submit("kv", KeyValueState.put("a", "1")))).isNull();
      CompletableFuture<Object> newer = replicator.submit("kv", KeyValueState.newerFormat());
      CompletableFuture<Object> after = replicator.submit("kv", KeyValueState.put("b", "2"));

      assertThatThrownBy(() -> await(newer)).isInstanceOf(ExecutionException.class);
      assertThatThrownBy(() -> await(after)).isInstanceOf(ExecutionException.class);
      assertThat(kv.get("b")).as("nothing after the unreadable command is applied").isNull();
      // The store shuts down behind the failed entry; readiness follows once Ratis says so.
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(TIMEOUT_SECONDS))
          .until(() -> !replicator.isReady());
      assertThat(kv.get("b")).isNull();
    }
  }

  @Test
  void rejectsUnknownStatesAndOversizedCommandsWithoutWritingThem() throws Exception {
    KeyValueState kv = new KeyValueState();
    try (RatisReplicator replicator =
        startReady(standalone(dataDir).maxCommandBytes(1024).build(), kv)) {
      assertThatThrownBy(() -> replicator.submit("nope", KeyValueState.put("a", "1")).join())
          .hasCauseInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("no replicated state named 'nope'");
      assertThatThrownBy(
              () -> replicator.submit("kv", KeyValueState.put("a", "x".repeat(2000))).join())
          .hasCauseInstanceOf(CommandTooLargeException.class);
      assertThat(replicator.stats().commandsProposed()).isZero();
    }
  }

  @Test
  void refusesWritesWhileNoLeaderIsElected() throws Exception {
    // Two of three peers are absent, so this one can never win an election.
    List<ReplicationPeer> peers =
        List.of(
            new ReplicationPeer("n1", "127.0.0.1", 0),
            new ReplicationPeer("n2", "127.0.0.1", 1),
            new ReplicationPeer("n3", "127.0.0.1", 2));
    KeyValueState kv = new KeyValueState();
    RatisReplicator replicator =
        RatisReplicator.start(
            ReplicationOptions.builder(dataDir).self(peers.get(0)).peers(peers).build(),
            List.of(kv));
    try {
      assertThat(replicator.isReady()).isFalse();
      assertThatThrownBy(() -> replicator.submit("kv", KeyValueState.put("a", "1")).join())
          .hasCauseInstanceOf(ReplicatorNotReadyException.class);
    } finally {
      replicator.close();
    }
    assertThat(replicator.ready()).isCompletedExceptionally();
  }

  @Test
  void failsSubmissionsAfterClose() throws Exception {
    KeyValueState kv = new KeyValueState();
    RatisReplicator replicator = startReady(standalone(dataDir).build(), kv);
    replicator.close();

    assertThat(replicator.isReady()).isFalse();
    assertThatThrownBy(() -> replicator.submit("kv", KeyValueState.put("a", "1")).join())
        .hasCauseInstanceOf(ReplicatorClosedException.class);
  }

  @Test
  void keepsAcknowledgedWritesAcrossRestartFromSnapshotPlusLog() throws Exception {
    KeyValueState kv = new KeyValueState();
    long snapshotIndex;
    try (RatisReplicator replicator = startReady(standalone(dataDir).build(), kv)) {
      for (int i = 0; i < 50; i++) {
        await(replicator.submit("kv", KeyValueState.put("before-" + i, "v" + i)));
      }
      snapshotIndex = replicator.takeSnapshot().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      for (int i = 0; i < 50; i++) {
        await(replicator.submit("kv", KeyValueState.put("after-" + i, "v" + i)));
      }
      await(replicator.submit("kv", KeyValueState.delete("before-0")));
    }
    assertThat(snapshotIndex).isPositive();

    KeyValueState restarted = new KeyValueState();
    try (RatisReplicator replicator = startReady(standalone(dataDir).build(), restarted)) {
      assertThat(restarted.size()).isEqualTo(99);
      assertThat(restarted.get("before-0")).isNull();
      assertThat(restarted.get("before-1")).isEqualTo("v1");
      assertThat(restarted.get("after-49")).isEqualTo("v49");
      assertThat(await(replicator.submit("kv", KeyValueState.put("after-49", "new"))))
          .isEqualTo("v49");
    }
  }

  @Test
  void fallsBackToTheOlderSnapshotWhenTheNewestIsDamaged() throws Exception {
    Path snapshots;
    try (RatisReplicator replicator =
        startReady(standalone(dataDir).build(), new KeyValueState())) {
      snapshots = replicator.snapshotDirectory();
      for (int i = 0; i < 20; i++) {
        await(replicator.submit("kv", KeyValueState.put("first-" + i, "v")));
      }
      replicator.takeSnapshot().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      for (int i = 0; i < 20; i++) {
        await(replicator.submit("kv", KeyValueState.put("second-" + i, "v")));
      }
    } // a clean close writes the newest snapshot
    List<Path> files = snapshotFiles(snapshots);
    assertThat(files).hasSize(2);
    Path newest = files.get(files.size() - 1);
    flipByte(newest, Files.size(newest) / 2);

    KeyValueState restarted = new KeyValueState();
    try (RatisReplicator replicator = startReady(standalone(dataDir).build(), restarted)) {
      assertThat(restarted.size()).as("older snapshot plus the log behind it").isEqualTo(40);
      assertThat(newest.resolveSibling(newest.getFileName() + ".corrupt")).exists();
    }
  }

  @Test
  void refusesOnceAndThenReplaysTheLogWhenTheOnlySnapshotIsFoundDamagedWhileLoading()
      throws Exception {
    Path snapshots;
    String value = "v".repeat(1_000);
    try (RatisReplicator replicator =
        startReady(standalone(dataDir).build(), new KeyValueState())) {
      snapshots = replicator.snapshotDirectory();
      // About 200 KB: the state's section spans several checksummed chunks.
      for (int i = 0; i < 200; i++) {
        await(replicator.submit("kv", KeyValueState.put("k" + i, value)));
      }
    } // a clean close writes the only snapshot; the log still reaches back to the first entry
    List<Path> files = snapshotFiles(snapshots);
    assertThat(files).hasSize(1);
    Path only = files.get(0);
    // Past the first chunk: the state has read part of the file when the damage is found.
    flipByte(only, Files.size(only) * 3 / 4);

    KeyValueState partlyLoaded = new KeyValueState();
    assertThatThrownBy(
            () -> RatisReplicator.start(standalone(dataDir).build(), List.of(partlyLoaded)))
        .hasStackTraceContaining("partly loaded");
    assertThat(only.resolveSibling(only.getFileName() + ".corrupt")).exists();
    assertThat(snapshotFiles(snapshots)).as("no snapshot of the partly loaded state").isEmpty();

    KeyValueState restarted = new KeyValueState();
    try (RatisReplicator replicator = startReady(standalone(dataDir).build(), restarted)) {
      assertThat(restarted.size()).as("every acknowledged write, from the log").isEqualTo(200);
      assertThat(restarted.get("k199")).isEqualTo(value);
    }
  }

  @Test
  void refusesToStartWhenNoUsableSnapshotReachesTheLog() throws Exception {
    // Tiny segments and thresholds so the log behind the snapshots gets purged.
    ReplicationOptions options =
        standalone(dataDir)
            .snapshotThresholdEntries(20)
            .logSegmentBytes(64 << 10)
            .maxBatchCommands(1)
            .build();
    Path snapshots;
    try (RatisReplicator replicator = startReady(options, new KeyValueState())) {
      snapshots = replicator.snapshotDirectory();
      String value = "x".repeat(2000);
      for (int i = 0; i < 400; i++) {
        await(replicator.submit("kv", KeyValueState.put("k" + i, value)));
      }
      assertThat(replicator.stats().logStartIndex()).as("log was purged").isPositive();
    }
    for (Path file : snapshotFiles(snapshots)) {
      flipByte(file, 40);
    }

    assertThatThrownBy(() -> RatisReplicator.start(options, List.of(new KeyValueState())))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("entries in between are lost");
    assertThat(snapshotFiles(snapshots))
        .as("the refused start wrote no snapshot of its incomplete state")
        .isEmpty();
  }

  @Test
  void startsOverADamagedClosedSegmentThatTheSnapshotCovers() throws Exception {
    // No snapshot until the clean close, which takes one covering the whole log.
    ReplicationOptions options =
        standalone(dataDir)
            .snapshotThresholdEntries(1_000_000)
            .logSegmentBytes(64 << 10)
            .maxBatchCommands(1)
            .build();
    String value = "x".repeat(1000);
    Path logDir;
    try (RatisReplicator replicator = startReady(options, new KeyValueState())) {
      logDir = replicator.snapshotDirectory().getParent().resolve("current");
      for (int i = 0; i < 300; i++) {
        await(replicator.submit("kv", KeyValueState.put("k" + i, value + i)));
      }
    } // a clean close snapshots everything applied
    List<Path> closed = closedSegments(logDir);
    assertThat(closed).as("closed segments behind the snapshot").hasSizeGreaterThan(2);
    Path cut = closed.get(1);
    try (var channel = java.nio.channels.FileChannel.open(cut, StandardOpenOption.WRITE)) {
      channel.truncate(channel.size() / 2);
    }

    KeyValueState restarted = new KeyValueState();
    try (RatisReplicator replicator = startReady(options, restarted)) {
      assertThat(restarted.size()).isEqualTo(300);
      assertThat(restarted.get("k299")).isEqualTo(value + 299);
      assertThat(cut.resolveSibling(cut.getFileName() + ".set-aside")).exists();
      assertThat(closed.get(0).resolveSibling(closed.get(0).getFileName() + ".set-aside"))
          .as("and the segments before it, so the log stays contiguous")
          .exists();
      assertThat(await(replicator.submit("kv", KeyValueState.put("after", "1")))).isNull();
    }
    KeyValueState again = new KeyValueState();
    try (RatisReplicator replicator = startReady(options, again)) {
      assertThat(again.size()).isEqualTo(301);
    }
  }

  @Test
  void stillRefusesADamagedClosedSegmentHoldingWritesNoSnapshotHas() throws Exception {
    ReplicationOptions options =
        standalone(dataDir)
            .snapshotThresholdEntries(1_000_000)
            .logSegmentBytes(64 << 10)
            .maxBatchCommands(1)
            .build();
    Path logDir;
    Path snapshots;
    try (RatisReplicator replicator = startReady(options, new KeyValueState())) {
      logDir = replicator.snapshotDirectory().getParent().resolve("current");
      snapshots = replicator.snapshotDirectory();
      for (int i = 0; i < 200; i++) {
        await(replicator.submit("kv", KeyValueState.put("k" + i, "x".repeat(1000))));
      }
    }
    for (Path file : snapshotFiles(snapshots)) {
      Files.delete(file); // as if no snapshot was ever taken: the log is the only copy
    }
    Path cut = closedSegments(logDir).get(0);
    try (var channel = java.nio.channels.FileChannel.open(cut, StandardOpenOption.WRITE)) {
      channel.truncate(channel.size() / 2);
    }

    assertThatThrownBy(() -> RatisReplicator.start(options, List.of(new KeyValueState())))
        .as("the log is the only copy of those writes")
        .isNotNull();
    assertThat(cut).as("left where it is").exists();
    assertThat(cut.resolveSibling(cut.getFileName() + ".set-aside")).doesNotExist();
  }

  @Test
  void reportsAnApplyCutShortByAnErrorAndRefusesToRestartOverTornStates() throws Exception {
    KeyValueState kv = new KeyValueState();
    RatisReplicator replicator = startReady(standalone(dataDir).build(), kv);
    try {
      assertThat(await(replicator.submit("kv", KeyValueState.put("a", "1")))).isNull();
      assertThat(replicator.failure()).isNull();

      kv.failNextApply(new OutOfMemoryError("simulated: Java heap space"));
      CompletableFuture<Object> cut = replicator.submit("kv", KeyValueState.put("b", "2"));

      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(TIMEOUT_SECONDS))
          .until(() -> replicator.failure() != null);
      assertThat(replicator.isReady()).isFalse();
      assertThatThrownBy(() -> RatisReplicator.restart(replicator))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("cut short");
      assertThat(cut).as("never acknowledged").isCompletedExceptionally();
    } finally {
      replicator.close();
    }

    // A new process rebuilds the states from disk, with every acknowledged write.
    KeyValueState rebuilt = new KeyValueState();
    try (RatisReplicator again = startReady(standalone(dataDir).build(), rebuilt)) {
      assertThat(rebuilt.get("a")).isEqualTo("1");
      assertThat(rebuilt.get("b")).as("committed before its apply was cut short").isEqualTo("2");
    }
  }

  @Test
  void restartsAFailedEngineInProcessKeepingTheStatesAsApplied() throws Exception {
    KeyValueState kv = new KeyValueState();
    RatisReplicator replicator = startReady(standalone(dataDir).build(), kv);
    RatisReplicator restarted = null;
    try {
      for (int i = 0; i < 10; i++) {
        await(replicator.submit("kv", KeyValueState.append("list", "v" + i)));
      }
      EngineThreads.kill(EngineThreads.live("LeaderStateImpl"));
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(TIMEOUT_SECONDS))
          .until(() -> replicator.failure() != null);
      assertThat(replicator.failure()).contains("LeaderStateImpl").contains("died");

      restarted = RatisReplicator.restart(replicator);
      restarted.ready().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      assertThat(kv.list("list")).as("not replayed a second time").hasSize(10);
      assertThat(await(restarted.submit("kv", KeyValueState.append("list", "v10")))).isEqualTo(11);
      assertThat(restarted.failure()).isNull();
    } finally {
      replicator.close();
      if (restarted != null) {
        restarted.close();
      }
    }
    KeyValueState rebuilt = new KeyValueState();
    try (RatisReplicator again = startReady(standalone(dataDir).build(), rebuilt)) {
      assertThat(rebuilt.list("list")).hasSize(11);
    }
  }

  @Test
  void aMemberRatisShutDownAfterAPauseIsRestartedOnlyOnceRatisHasWrittenItsSnapshotOnStop()
      throws Exception {
    Set<Thread> earlierMonitors = pauseMonitors();
    HeldSnapshotState kv = new HeldSnapshotState();
    RatisReplicator replicator =
        startReady(standalone(dataDir).pauseCloseThreshold(Duration.ofSeconds(2)).build(), kv);
    ExecutorService restarter = Executors.newSingleThreadExecutor();
    RatisReplicator restarted = null;
    try {
      for (int i = 0; i < 10; i++) {
        await(replicator.submit("kv", KeyValueState.append("list", "v" + i)));
      }
      Set<Thread> monitors = pauseMonitors();
      monitors.removeAll(earlierMonitors);
      assertThat(monitors).as("this engine's pause monitor").hasSize(1);

      // A pause past the threshold, as the monitor sees it: Ratis shuts the member down on the
      // monitor's thread, and its apply thread writes a snapshot on stop, held here.
      kv.holdNextSnapshot();
      EngineThreads.suspendFor(monitors.iterator().next(), Duration.ofSeconds(3));
      assertThat(kv.snapshotHeld.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(TIMEOUT_SECONDS))
          .until(() -> replicator.failure() != null);

      Future<RatisReplicator> restart = restarter.submit(() -> RatisReplicator.restart(replicator));
      Thread.sleep(500);
      assertThat(restart).as("waits while Ratis still writes its snapshot").isNotDone();
      try (Stream<Path> files = Files.list(replicator.snapshotDirectory())) {
        assertThat(files.map(file -> file.getFileName().toString()))
            .as("nothing written beside the snapshot Ratis is still writing")
            .noneMatch(name -> name.endsWith(".bin"))
            .filteredOn(name -> name.endsWith(".tmp"))
            .hasSize(1);
      }
      kv.releaseSnapshot();
      restarted = restart.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      restarted.ready().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      assertThat(kv.state.list("list")).as("not replayed a second time").hasSize(10);
      assertThat(await(restarted.submit("kv", KeyValueState.append("list", "v10")))).isEqualTo(11);
    } finally {
      kv.releaseSnapshot();
      restarter.shutdownNow();
      replicator.close();
      if (restarted != null) {
        restarted.close();
      }
    }
    KeyValueState rebuilt = new KeyValueState();
    try (RatisReplicator again = startReady(standalone(dataDir).build(), rebuilt)) {
      assertThat(rebuilt.list("list")).hasSize(11);
    }
  }

  /** The JVM's Ratis pause monitors (one per Ratis server), by thread name. */
  private static Set<Thread> pauseMonitors() {
    Set<Thread> monitors = new HashSet<>();
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      if (thread.isAlive() && thread.getName().startsWith("JvmPauseMonitor")) {
        monitors.add(thread);
      }
    }
    return monitors;
  }

  /** {@link KeyValueState} whose next snapshot, once armed, waits until released. */
  private static final class HeldSnapshotState implements ReplicatedState {
    final KeyValueState state = new KeyValueState();
    final CountDownLatch snapshotHeld = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final java.util.concurrent.atomic.AtomicBoolean armed =
        new java.util.concurrent.atomic.AtomicBoolean();

    void holdNextSnapshot() {
      armed.set(true);
    }

    void releaseSnapshot() {
      release.countDown();
    }

    @Override
    public String name() {
      return state.name();
    }

    @Override
    public Object apply(java.nio.ByteBuffer command, long logIndex) {
      return state.apply(command, logIndex);
    }

    @Override
    public void writeSnapshot(java.io.DataOutputStream out) throws IOException {
      if (armed.compareAndSet(true, false)) {
        snapshotHeld.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while held", e);
        }
      }
      state.writeSnapshot(out);
    }

    @Override
    public void loadSnapshot(java.io.DataInputStream in) throws IOException {
      state.loadSnapshot(in);
    }
  }

  private static List<Path> closedSegments(Path logDir) throws IOException {
    try (Stream<Path> files = Files.list(logDir)) {
      return files
          .filter(f -> f.getFileName().toString().matches("log_\\d+-\\d+"))
          .sorted(
              java.util.Comparator.comparingLong(
                  f ->
                      Long.parseLong(f.getFileName().toString().replaceAll("log_(\\d+)-.*", "$1"))))
          .toList();
    }
  }

  @Test
  void purgesTheLogBehindSnapshotsSoDiskUseStaysBounded() throws Exception {
    ReplicationOptions options =
        standalone(dataDir)
            .snapshotThresholdEntries(100)
            .snapshotsRetained(2)
            .logSegmentBytes(64 << 10)
            .maxBatchCommands(1)
            .build();
    String value = "x".repeat(1000);
    int writes = 3000; // ~3 MB of log without purging
    try (RatisReplicator replicator = startReady(options, new KeyValueState())) {
      for (int i = 0; i < writes; i++) {
        // Overwrite a few keys, so the state (and its snapshot) stays small.
        await(replicator.submit("kv", KeyValueState.put("k" + (i % 10), value)));
      }
      ReplicationStats stats = replicator.stats();
      long logBytes = directorySize(dataDir) - directorySize(replicator.snapshotDirectory());
      System.out.println("after " + writes + " writes: log " + logBytes + " bytes, " + stats);

      assertThat(stats.logStartIndex()).isGreaterThan(writes / 2);
      assertThat(snapshotFiles(replicator.snapshotDirectory())).hasSizeLessThanOrEqualTo(2);
      assertThat(logBytes).as("log bytes on disk").isLessThan(1_000_000);
    }
  }

  private static List<CompletableFuture<Object>> submitTogether(
      int threads, int perThread, RatisReplicator replicator) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<List<CompletableFuture<Object>>>> submitted = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      submitted.add(
          pool.submit(
              () -> {
                start.await();
                List<CompletableFuture<Object>> acks = new ArrayList<>();
                for (int i = 0; i < perThread; i++) {
                  acks.add(replicator.submit("kv", KeyValueState.put("t" + thread + "-" + i, "v")));
                }
                return acks;
              }));
    }
    start.countDown();
    List<CompletableFuture<Object>> all = new ArrayList<>();
    for (Future<List<CompletableFuture<Object>>> future : submitted) {
      all.addAll(future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
    }
    pool.shutdown();
    return all;
  }

  static List<Path> snapshotFiles(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files
          .filter(f -> f.getFileName().toString().matches("snapshot-\\d+-\\d+\\.bin"))
          .sorted(
              (a, b) ->
                  Long.compare(
                      indexOf(a.getFileName().toString()), indexOf(b.getFileName().toString())))
          .toList();
    }
  }

  private static long indexOf(String snapshotName) {
    return Long.parseLong(snapshotName.replaceAll("snapshot-\\d+-(\\d+)\\.bin", "$1"));
  }

  static void flipByte(Path file, long offset) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    bytes[(int) offset] ^= 0x5A;
    Files.write(file, bytes);
  }

  private static long directorySize(Path directory) throws IOException {
    try (Stream<Path> files = Files.walk(directory)) {
      return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
    }
  }

  /** Holds the tasks given to it until released, to keep submissions pending. */
  private static final class HeldExecutor implements java.util.concurrent.Executor {
    private final List<Runnable> held = new ArrayList<>();
    private boolean released;

    @Override
    public synchronized void execute(Runnable task) {
      if (released) {
        task.run();
      } else {
        held.add(task);
      }
    }

    synchronized void release() {
      released = true;
      held.forEach(Runnable::run);
      held.clear();
    }
  }
}
