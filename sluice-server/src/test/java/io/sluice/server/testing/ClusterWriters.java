package io.sluice.server.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writers that publish one config each ({@code <prefix>-<n>} in group {@link #GROUP}), content an
 * increasing sequence number, as fast as their writes are answered, while a test changes the
 * cluster under them; then whether every node holds, for each key, the last write acknowledged or a
 * newer one: no acknowledged write lost. How a write is sent (through which node, or a client) is
 * the test's {@link Write}.
 *
 * <p>Concurrency: each writer thread alone writes its key's entry in {@code lastAcked}; the test
 * thread only reads, and {@link #close} stops and joins the writers.
 */
public final class ClusterWriters implements AutoCloseable {
  /** The group the writers publish in. */
  public static final String GROUP = "CLUSTER";

  /** The failure kinds kept for the printout, at most this many. */
  private static final int MAX_FAILURE_KINDS = 20;

  /** One write: sends {@code seq} as the content of {@code key}; true if it was acknowledged. */
  @FunctionalInterface
  public interface Write {
    boolean send(int writer, String key, long seq) throws Exception;
  }

  private final Map<String, Long> lastAcked = new ConcurrentHashMap<>();
  private final AtomicLong attempts = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final Set<String> failureKinds = ConcurrentHashMap.newKeySet();
  private final AtomicLong markedAtNanos = new AtomicLong();
  private final AtomicLong firstAckAfterMarkNanos = new AtomicLong();
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean stopped;

  private ClusterWriters() {}

  /** Starts {@code count} writers of keys {@code prefix-0}, {@code prefix-1}, ... */
  public static ClusterWriters start(String prefix, int count, Write write) {
    ClusterWriters writers = new ClusterWriters();
    for (int w = 0; w < count; w++) {
      int writer = w;
      String key = prefix + "-" + w;
      Thread thread = new Thread(() -> writers.run(writer, key, write), prefix + "-writer-" + w);
      writers.threads.add(thread);
    }
    writers.threads.forEach(Thread::start);
    return writers;
  }

  /**
   * Writers that go round {@code members} (a live set the test changes as members come and go),
   * each write through the next member in turn; a write to a member whose process is down counts as
   * failed.
   */
  public static ClusterWriters roundMembers(
      ClusterProcesses cluster, String prefix, int count, Collection<Integer> members) {
    return start(
        prefix,
        count,
        (writer, key, seq) -> {
          List<Integer> now = List.copyOf(members);
          int node = now.get((writer + (int) seq) % now.size());
          return cluster.process(node).isAlive() && publish(cluster, node, key, seq);
        });
  }

  /** Publishes {@code seq} as {@code key} in {@link #GROUP} through {@code node}'s Open API. */
  public static boolean publish(ClusterProcesses cluster, int node, String key, long seq)
      throws Exception {
    return cluster
            .postForm(
                node, "/v1/cs/configs", "dataId=" + key + "&group=" + GROUP + "&content=" + seq)
            .statusCode()
        == 200;
  }

  private void run(int writer, String key, Write write) {
    for (long seq = 1; !stopped; seq++) {
      attempts.incrementAndGet();
      long began = System.nanoTime();
      try {
        if (write.send(writer, key, seq)) {
          lastAcked.put(key, seq);
          // Only a write begun after the mark counts: one answered just after a kill may have been
          // committed before it.
          long mark = markedAtNanos.get();
          if (mark != 0 && began - mark >= 0) {
            firstAckAfterMarkNanos.compareAndSet(0, System.nanoTime());
          }
        } else {
          failed("not acknowledged");
        }
      } catch (Exception e) {
        failed(String.valueOf(e.getMessage()));
      }
    }
  }

  private void failed(String kind) {
    failures.incrementAndGet();
    if (failureKinds.size() < MAX_FAILURE_KINDS) {
      failureKinds.add(kind);
    }
  }

  /** Per key, the last sequence number acknowledged so far. */
  public Map<String, Long> lastAcked() {
    return Map.copyOf(lastAcked);
  }

  public long attempts() {
    return attempts.get();
  }

  /** Writes refused, not answered, or failed on the way. */
  public long failures() {
    return failures.get();
  }

  /** What the failures said (a few kinds), for the printout. */
  public Set<String> failureKinds() {
    return Set.copyOf(failureKinds);
  }

  /** Notes now (e.g. a kill), so {@link #firstAckAfterMarkNanos} says when writes resumed. */
  public long mark() {
    long now = System.nanoTime();
    firstAckAfterMarkNanos.set(0);
    markedAtNanos.set(now);
    return now;
  }

  /**
   * {@link System#nanoTime} of the first acknowledgement of a write begun after {@link #mark}; 0 if
   * none yet.
   */
  public long firstAckAfterMarkNanos() {
    return firstAckAfterMarkNanos.get();
  }

  /** Waits until every writer has had {@code atLeast} writes acknowledged. */
  public void awaitAcked(long atLeast, int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (lastAcked.size() < threads.size()
        || !lastAcked.values().stream().allMatch(seq -> seq >= atLeast)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "writers did not get going within " + seconds + " s: " + lastAcked);
      }
      Thread.sleep(20);
    }
  }

  /** Whether every key has had {@code more} writes acknowledged since {@code then}. */
  public boolean beyond(Map<String, Long> then, long more) {
    for (Map.Entry<String, Long> before : then.entrySet()) {
      if (lastAcked.getOrDefault(before.getKey(), 0L) < before.getValue() + more) {
        return false;
      }
    }
    return true;
  }

  /** Waits until every key has had {@code more} writes acknowledged from now on. */
  public void awaitMore(long more, int seconds) throws InterruptedException {
    Map<String, Long> then = lastAcked();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!beyond(then, more)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "writes did not go on within " + seconds + " s: " + then + " then, " + lastAcked);
      }
      Thread.sleep(20);
    }
  }

  /**
   * Asserts that each of {@code nodes} holds every key's last acknowledged write or a newer one.
   */
  public void assertHeldOn(ClusterProcesses cluster, Iterable<Integer> nodes) throws Exception {
    Map<String, Long> acked = lastAcked();
    for (int node : nodes) {
      for (Map.Entry<String, Long> write : acked.entrySet()) {
        String read =
            cluster.get(node, "/v1/cs/configs?dataId=" + write.getKey() + "&group=" + GROUP).body();
        assertThat(Long.parseLong(read))
            .as("%s on node %d holds the last acknowledged write or a newer one", write, node)
            .isGreaterThanOrEqualTo(write.getValue());
      }
    }
  }

  /** Stops the writers and waits for each to finish its write in flight. */
  @Override
  public void close() throws InterruptedException {
    stopped = true;
    for (Thread thread : threads) {
      thread.join(30_000);
    }
  }
}
