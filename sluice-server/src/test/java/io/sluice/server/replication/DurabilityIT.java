package io.sluice.server.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.testing.BesideInProcessTests;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a replicator process with SIGKILL in the middle of a write storm, restarts it over the same
 * directory and checks that every write it acknowledged is there. Snapshots are taken every few
 * hundred entries during the storm, so kills also land during snapshots and log purges.
 */
@BesideInProcessTests
class DurabilityIT {
  private static final int ROUNDS = 4;
  private static final int WRITER_THREADS = 16;
  private static final long SNAPSHOT_EVERY_ENTRIES = 300;

  @TempDir Path work;

  @Test
  void keepsEveryAcknowledgedWriteThroughKillMinus9() throws Exception {
    long seed = System.nanoTime();
    System.out.println("DurabilityIT seed " + seed);
    Random random = new Random(seed);
    Path dataDir = work.resolve("ratis");
    Path stderr = work.resolve("child-stderr.log");
    Set<String> acknowledged = new HashSet<>();

    for (int round = 1; round <= ROUNDS; round++) {
      int killAfterAcks = 200 + random.nextInt(5_000);
      Process storm =
          ReplicationWorkload.launch(
              stderr,
              "storm",
              dataDir.toString(),
              "r" + round,
              Integer.toString(WRITER_THREADS),
              Long.toString(SNAPSHOT_EVERY_ENTRIES));
      BlockingQueue<String> lines = drain(storm);
      awaitLine(lines, "READY END", stderr);
      Set<String> roundAcks = new HashSet<>();
      while (roundAcks.size() < killAfterAcks) {
        String line = lines.poll(60, TimeUnit.SECONDS);
        assertThat(line).as("storm output; child stderr in " + stderr).isNotNull();
        ack(line, roundAcks);
      }
      storm.destroyForcibly(); // SIGKILL: no shutdown hook, no final snapshot, no flush
      assertThat(storm.waitFor(30, TimeUnit.SECONDS)).isTrue();
      // Acks printed before the kill may still sit in the pipe; they count.
      for (String line; !(line = lines.take()).equals(EOF); ) {
        ack(line, roundAcks);
      }
      acknowledged.addAll(roundAcks);

      Path keysFile = work.resolve("keys-" + round + ".txt");
      Process verify =
          ReplicationWorkload.launch(stderr, "verify", dataDir.toString(), keysFile.toString());
      BlockingQueue<String> verifyLines = drain(verify);
      String verified = awaitLine(verifyLines, "VERIFIED", stderr);
      assertThat(verify.waitFor(60, TimeUnit.SECONDS)).isTrue();
      Set<String> present = new HashSet<>(Files.readAllLines(keysFile));
      System.out.printf(
          "round %d: killed after %d acks this round; %d acknowledged in all; %s%n",
          round, roundAcks.size(), acknowledged.size(), verified);

      Set<String> lost = new HashSet<>(acknowledged);
      lost.removeAll(present);
      assertThat(lost)
          .as("acknowledged writes missing after kill -9 (seed " + seed + ")")
          .isEmpty();
    }
    String corrupt;
    try (var files = Files.walk(dataDir)) {
      corrupt =
          files
              .map(Path::toString)
              .filter(name -> name.endsWith(".corrupt"))
              .findFirst()
              .orElse("");
    }
    assertThat(corrupt).as("no snapshot was found damaged").isEmpty();
  }

  private static final String EOF = "\u0000EOF";

  private static void ack(String line, Set<String> acks) {
    // Only whole lines: the last one may have been cut by the kill.
    if (line.startsWith("ACK ") && line.endsWith(" END")) {
      acks.add(line.substring(4, line.length() - 4));
    }
  }

  static BlockingQueue<String> drain(Process process) {
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                  lines.add(line);
                }
              } catch (IOException ignored) {
                // The process died; what was read is in the queue.
              } finally {
                lines.add(EOF);
              }
            },
            "child-output");
    reader.setDaemon(true);
    reader.start();
    return lines;
  }

  static String awaitLine(BlockingQueue<String> lines, String prefix, Path stderr)
      throws InterruptedException, IOException {
    while (true) {
      String line = lines.poll(180, TimeUnit.SECONDS);
      if (line == null || line.equals(EOF)) {
        throw new AssertionError(
            "child ended without '" + prefix + "'; its stderr:\n" + tail(stderr));
      }
      if (line.startsWith(prefix)) {
        return line;
      }
    }
  }

  private static String tail(Path file) throws IOException {
    if (!Files.exists(file)) {
      return "";
    }
    List<String> all = Files.readAllLines(file);
    return String.join("\n", all.subList(Math.max(0, all.size() - 40), all.size()));
  }
}
