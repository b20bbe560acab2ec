package io.sluice.bench.load;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.naming.NamingService;
import com.alibaba.nacos.api.naming.listener.NamingEvent;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Ephemeral cross-node visibility in a cluster, through the official {@code nacos-client}: how long
 * from the moment a client on one node calls {@code registerInstance} until a subscriber's listener
 * on another node sees the instance.
 *
 * <p>One {@code NamingService} per node (each given that node's address only). Round {@code r}
 * registers one instance of its own service {@code vis-r} through node {@code r % 3} and waits for
 * it at the listener of a client on one of the other two nodes (alternating), whose subscription
 * was made before any round started (a subscriber that joined long before, as in production).
 * Rounds run one after another, {@code --gap-ms} apart; the first {@code --warmup} rounds are not
 * counted.
 *
 * <pre>
 * java -cp sluice-bench/target/benchmarks.jar io.sluice.bench.load.ClusterVisibility \
 *     127.0.0.1:28848,127.0.0.2:28848,127.0.0.3:28848 --rounds 1000 --warmup 100 --gap-ms 20 \
 *     [--leader 127.0.0.2:28848] [--out rounds.csv]
 * </pre>
 *
 * Prints the percentiles of register-to-seen (the figure issue 17 bounds), of the register call
 * itself, and of return-to-seen, overall and by whether the owner node was the leader. {@code
 * --out} writes every counted round (owner, watcher, the three durations in microseconds, and the
 * {@code System.nanoTime()} at which the register call began, comparable with the servers' on the
 * same machine).
 */
public final class ClusterVisibility {
  private ClusterVisibility() {}

  private record Round(
      int owner, int watcher, long beganNanos, long registeredNanos, long seenNanos) {
    long totalMicros() {
      return (seenNanos - beganNanos) / 1_000;
    }

    long callMicros() {
      return (registeredNanos - beganNanos) / 1_000;
    }

    long afterCallMicros() {
      return Math.max(0, seenNanos - registeredNanos) / 1_000;
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 0 || args[0].startsWith("-")) {
      System.err.println(
          "usage: ClusterVisibility host:port,host:port,host:port [--rounds N] [--warmup N]"
              + " [--gap-ms N] [--leader host:port] [--out FILE]");
      System.exit(2);
    }
    String[] nodes = args[0].split(",");
    int rounds = 1_000;
    int warmup = 100;
    long gapMillis = 20;
    String leader = "";
    Path out = null;
    for (int i = 1; i < args.length; i += 2) {
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(args[i] + " needs a value");
      }
      switch (args[i]) {
        case "--rounds" -> rounds = positive(args[i], args[i + 1]);
        case "--warmup" -> warmup = Integer.parseInt(args[i + 1]);
        case "--gap-ms" -> gapMillis = Long.parseLong(args[i + 1]);
        case "--leader" -> leader = args[i + 1];
        case "--out" -> out = Path.of(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (nodes.length < 2) {
      throw new IllegalArgumentException("give at least two nodes");
    }
    LoadDriver.quietOfficialClient();

    NamingService[] clients = new NamingService[nodes.length];
    for (int n = 0; n < nodes.length; n++) {
      Properties properties = new Properties();
      properties.put(PropertyKeyConst.SERVER_ADDR, nodes[n]);
      clients[n] = NacosFactory.createNamingService(properties);
    }
    int total = warmup + rounds;
    List<CompletableFuture<Long>> seen = new ArrayList<>(total);
    for (int r = 0; r < total; r++) {
      CompletableFuture<Long> seenAt = new CompletableFuture<>();
      seen.add(seenAt);
      clients[watcher(r, nodes.length)].subscribe(
          service(r),
          event -> {
            if (event instanceof NamingEvent naming && !naming.getInstances().isEmpty()) {
              seenAt.complete(System.nanoTime());
            }
          });
    }
    Thread.sleep(2_000); // the subscriptions' first (empty) pushes are answered by now

    List<Round> counted = new ArrayList<>(rounds);
    for (int r = 0; r < total; r++) {
      int owner = r % nodes.length;
      long began = System.nanoTime();
      clients[owner].registerInstance(service(r), "127.0.0.9", 20_000 + r % 40_000);
      long registered = System.nanoTime();
      long seenAt = seen.get(r).get(30, TimeUnit.SECONDS);
      if (r >= warmup) {
        counted.add(new Round(owner, watcher(r, nodes.length), began, registered, seenAt));
      }
      Thread.sleep(gapMillis);
    }

    double load = loadAverage();
    report("all rounds", counted, load);
    if (!leader.isEmpty()) {
      int leaderIndex = Arrays.asList(nodes).indexOf(leader);
      report(
          "owner is the leader",
          counted.stream().filter(round -> round.owner() == leaderIndex).toList(),
          load);
      report(
          "owner is a follower, watcher the leader",
          counted.stream()
              .filter(round -> round.owner() != leaderIndex && round.watcher() == leaderIndex)
              .toList(),
          load);
      report(
          "owner and watcher both followers",
          counted.stream()
              .filter(round -> round.owner() != leaderIndex && round.watcher() != leaderIndex)
              .toList(),
          load);
    }
    if (out != null) {
      try (PrintWriter csv = new PrintWriter(Files.newBufferedWriter(out))) {
        csv.println("owner,watcher,began_nanos,total_us,call_us,after_call_us");
        for (Round round : counted) {
          csv.printf(
              Locale.ROOT,
              "%s,%s,%d,%d,%d,%d%n",
              nodes[round.owner()],
              nodes[round.watcher()],
              round.beganNanos(),
              round.totalMicros(),
              round.callMicros(),
              round.afterCallMicros());
        }
      }
    }
    for (NamingService client : clients) {
      client.shutDown();
    }
    System.exit(0);
  }

  /** The node whose client subscribes to round {@code r}'s service: never the owner. */
  private static int watcher(int r, int nodeCount) {
    int owner = r % nodeCount;
    return (owner + 1 + (r / nodeCount) % (nodeCount - 1)) % nodeCount;
  }

  private static String service(int r) {
    return "vis-" + r;
  }

  private static void report(String label, List<Round> rounds, double load) {
    if (rounds.isEmpty()) {
      return;
    }
    long[] total = rounds.stream().mapToLong(Round::totalMicros).sorted().toArray();
    long[] call = rounds.stream().mapToLong(Round::callMicros).sorted().toArray();
    long[] after = rounds.stream().mapToLong(Round::afterCallMicros).sorted().toArray();
    System.out.printf(
        Locale.ROOT,
        "%s (%d rounds, 1-min load %.2f): register -> seen on another node p50 %.1f ms, p99 %.1f"
            + " ms, max %.1f ms; the register call p50 %.1f ms, p99 %.1f ms; return -> seen p50"
            + " %.1f ms, p99 %.1f ms%n",
        label,
        rounds.size(),
        load,
        percentile(total, 50) / 1e3,
        percentile(total, 99) / 1e3,
        total[total.length - 1] / 1e3,
        percentile(call, 50) / 1e3,
        percentile(call, 99) / 1e3,
        percentile(after, 50) / 1e3,
        percentile(after, 99) / 1e3);
  }

  /** The nearest-rank percentile of sorted values. */
  private static long percentile(long[] sorted, int p) {
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, rank - 1)];
  }

  private static double loadAverage() throws Exception {
    return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
  }

  private static int positive(String option, String value) {
    int parsed = Integer.parseInt(value);
    if (parsed <= 0) {
      throw new IllegalArgumentException(option + " must be positive, got " + value);
    }
    return parsed;
  }
}
