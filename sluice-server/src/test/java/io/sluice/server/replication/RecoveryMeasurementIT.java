package io.sluice.server.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Measures how long a fresh JVM takes to be ready over 100k acknowledged commands after the writer
 * was killed with SIGKILL (no final snapshot), for the ways the log can look. Prints the figures
 * (look for "RECOVERY"); asserts only that every command came back, never a timing.
 */
@Isolated // it measures recovery times: nothing else may run beside it
class RecoveryMeasurementIT {
  private static final int COMMANDS = 100_000;

  @TempDir Path work;

  @Test
  void recoversOneHundredThousandBatchedCommandsFromTheLogAlone() throws Exception {
    Path dataDir = work.resolve("batched");
    fillThenKill(dataDir, ReplicationOptions.DEFAULT_MAX_BATCH_COMMANDS, 1_000_000);
    recover(dataDir, "batched writes, log only");
    recover(dataDir, "batched writes, after a clean stop (snapshot + empty log tail)");
  }

  @Test
  void recoversOneHundredThousandSingleCommandEntriesFromSnapshotPlusLog() throws Exception {
    Path dataDir = work.resolve("single-default");
    fillThenKill(dataDir, 1, ReplicationOptions.DEFAULT_SNAPSHOT_THRESHOLD_ENTRIES);
    recover(dataDir, "one command per entry, default snapshot threshold");
  }

  @Test
  void recoversOneHundredThousandSingleCommandEntriesWithoutAnySnapshot() throws Exception {
    Path dataDir = work.resolve("single-nosnapshot");
    fillThenKill(dataDir, 1, 1_000_000);
    recover(dataDir, "one command per entry, no snapshot (worst case)");
  }

  private void fillThenKill(Path dataDir, int maxBatchCommands, long snapshotThreshold)
      throws Exception {
    Path stderr = work.resolve("stderr.log");
    Process fill =
        ReplicationWorkload.launch(
            stderr,
            "fill",
            dataDir.toString(),
            Integer.toString(COMMANDS),
            Integer.toString(maxBatchCommands),
            Long.toString(snapshotThreshold));
    BlockingQueue<String> lines = DurabilityIT.drain(fill);
    String filled = DurabilityIT.awaitLine(lines, "FILLED", stderr);
    fill.destroyForcibly();
    assertThat(fill.waitFor(30, TimeUnit.SECONDS)).isTrue();
    System.out.println("RECOVERY fill: " + filled);
    assertThat(filled).contains("failures=0");
  }

  private void recover(Path dataDir, String scenario) throws Exception {
    Path stderr = work.resolve("stderr.log");
    Path keys = work.resolve("keys.txt");
    Process verify =
        ReplicationWorkload.launch(stderr, "verify", dataDir.toString(), keys.toString());
    String verified = DurabilityIT.awaitLine(DurabilityIT.drain(verify), "VERIFIED", stderr);
    assertThat(verify.waitFor(60, TimeUnit.SECONDS)).isTrue();
    System.out.println("RECOVERY " + scenario + ": " + verified);
    assertThat(Files.readAllLines(keys)).hasSize(COMMANDS);
  }
}
