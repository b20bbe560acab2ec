package io.sluice.e2e;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Linux network namespace a test makes for itself, joined to this JVM's namespace by a veth pair
 * on a private /30: the test starts processes inside it ({@link #commandPrefix}) and reaches them
 * at {@link #address()}, the namespace's end of the pair. Inside, {@code 127.0.0.1} is the
 * namespace's own loopback, and the pair's end is the only other interface.
 *
 * <p>Why: Dubbo will not register a loopback address (its {@code NetUtils} takes {@code 127.x} for
 * no address and registers the first interface address instead), and tests send traffic only to
 * {@code 127.0.0.0/8} or to namespaces they make. So whatever runs Dubbo runs in one of these, and
 * Dubbo registers and calls the namespace's address. See the e2e module's README.
 *
 * <p>Invariants: the namespace is named {@code sluice-e2e-<pid>-<n>} after the JVM that made it;
 * its /30 lies in {@code 10.213.0.0/16} and is chosen, under a lock file shared by every JVM on the
 * machine, as one that no interface of this JVM's namespace has, so runs side by side never share
 * one. {@link #close} (or the shutdown hook, if the JVM exits first) ends what still runs inside
 * and deletes the namespace and the pair. A namespace whose JVM is gone (a crashed or killed run)
 * is deleted, with what still runs in it, by the next {@link #create}.
 *
 * <p>Ports inside: a namespace has its own, so nothing outside can take one. Inside, the kernel
 * hands out ports from 32768 up (a new namespace's {@code ip_local_port_range}) to binds of port 0;
 * {@link #nextPort} hands out, for what must be given its port (a Dubbo provider: Dubbo has no port
 * 0), ports from {@value #FIRST_GIVEN_PORT} up, each once; and sluice-server, which must be given
 * its ports too, gets its from {@code FreePorts}, below 31000. The three never meet.
 */
public final class NetworkNamespace implements AutoCloseable {
  private static final String PREFIX = "sluice-e2e-";
  private static final Pattern OWNED = Pattern.compile(Pattern.quote(PREFIX) + "(\\d+)-\\d+");
  private static final Path LOCK =
      Path.of(System.getProperty("java.io.tmpdir"), "sluice-e2e-netns.lock");

  /** 10.213.0.0/16: 16,384 /30 networks. */
  private static final int FIRST_NETWORK = (10 << 24) | (213 << 16);

  private static final int NETWORKS = 1 << 14;
  private static final AtomicInteger created = new AtomicInteger();

  /** The first port {@link #nextPort} hands out (above FreePorts', below the kernel's). */
  static final int FIRST_GIVEN_PORT = 31_001;

  private static final int LAST_GIVEN_PORT = 32_767;

  private final AtomicInteger givenPorts = new AtomicInteger(FIRST_GIVEN_PORT);

  private final String ip;
  private final String name;
  private final String hostLink;
  private final String hostAddress;
  private final String address;
  private final Thread cleanup;
  private boolean closed;

  private NetworkNamespace(
      String ip, String name, String hostLink, String hostAddress, String address) {
    this.ip = ip;
    this.name = name;
    this.hostLink = hostLink;
    this.hostAddress = hostAddress;
    this.address = address;
    this.cleanup = new Thread(this::delete, "netns-cleanup-" + name);
  }

  /**
   * Makes a namespace with {@code lo} up and a veth pair to this one. Fails, saying why, where that
   * cannot be done (not root, no {@code ip netns}): tests that need one must not pass without it.
   * Synchronized: the lock file keeps other JVMs out, not other threads of this one.
   */
  public static synchronized NetworkNamespace create() throws IOException, InterruptedException {
    String ip = findIp();
    if (!Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"))) {
      throw unavailable("this JVM does not run as root");
    }
    long pid = ProcessHandle.current().pid();
    int n = created.getAndIncrement();
    String name = PREFIX + pid + "-" + n;
    // Interface names are at most 15 characters: "sl" + a pid (at most 7 digits) + "n" + n.
    String hostLink = "sl" + pid + "n" + n;
    try (FileChannel channel =
        FileChannel.open(LOCK, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      channel.lock(); // released when the channel closes
      deleteStale(ip);
      int network = freeNetwork(ip);
      String hostAddress = dotted(network + 1);
      String address = dotted(network + 2);
      NetworkNamespace namespace = new NetworkNamespace(ip, name, hostLink, hostAddress, address);
      try {
        run(ip, "netns", "add", name);
        run(ip, "link", "add", hostLink, "type", "veth", "peer", "name", "eth0", "netns", name);
        run(ip, "addr", "add", hostAddress + "/30", "dev", hostLink);
        run(ip, "link", "set", hostLink, "up");
        run(ip, "-n", name, "addr", "add", address + "/30", "dev", "eth0");
        run(ip, "-n", name, "link", "set", "eth0", "up");
        run(ip, "-n", name, "link", "set", "lo", "up");
      } catch (IOException | InterruptedException | RuntimeException e) {
        namespace.delete();
        throw e;
      }
      Runtime.getRuntime().addShutdownHook(namespace.cleanup);
      return namespace;
    }
  }

  /** Its name, as {@code ip netns} lists it. */
  public String name() {
    return name;
  }

  /**
   * The namespace's address (its end of the pair): this JVM reaches what listens inside on it, and
   * an application inside that picks its own address (Dubbo) picks it.
   */
  public String address() {
    return address;
  }

  /**
   * A port no process in this namespace has been given before and none is handed by the kernel, for
   * a server that must be told its port (a Dubbo provider).
   */
  public int nextPort() {
    int port = givenPorts.getAndIncrement();
    if (port > LAST_GIVEN_PORT) {
      throw new IllegalStateException("namespace " + name + " has given all its ports");
    }
    return port;
  }

  /** The words before a command that run it inside: {@code ip netns exec <name>}. */
  public List<String> commandPrefix() {
    return List.of(ip, "netns", "exec", name);
  }

  /** Ends whatever still runs inside, then deletes the namespace and the pair. */
  @Override
  public void close() {
    delete();
    try {
      Runtime.getRuntime().removeShutdownHook(cleanup);
    } catch (IllegalStateException shuttingDown) {
      // The hook is running or about to.
    }
  }

  private synchronized void delete() {
    if (closed) {
      return;
    }
    closed = true;
    deleteNamespace(ip, name);
    // Deleting the namespace takes its end of the pair down with it, but later: delete ours now.
    runQuietly(ip, "link", "delete", hostLink);
  }

  @Override
  public String toString() {
    return name + " (" + address + ", this side " + hostAddress + ")";
  }

  /** Kills what still runs in {@code namespace} (a process holds it alive) and deletes it. */
  private static void deleteNamespace(String ip, String namespace) {
    Optional<String> pids = runQuietly(ip, "netns", "pids", namespace);
    for (String pid : pids.orElse("").split("\\s+")) {
      if (!pid.isBlank()) {
        ProcessHandle.of(Long.parseLong(pid.trim())).ifPresent(ProcessHandle::destroyForcibly);
      }
    }
    runQuietly(ip, "netns", "delete", namespace);
  }

  /** Deletes the namespaces of earlier runs whose JVM is gone. */
  private static void deleteStale(String ip) throws IOException, InterruptedException {
    for (String line : run(ip, "netns", "list").split("\n")) {
      String namespace = line.trim().split("\\s+")[0];
      Matcher owned = OWNED.matcher(namespace);
      if (owned.matches()
          && ProcessHandle.of(Long.parseLong(owned.group(1))).map(p -> !p.isAlive()).orElse(true)) {
        System.err.println(
            "[e2e] deleting the network namespace of a run that ended: " + namespace);
        deleteNamespace(ip, namespace);
      }
    }
  }

  /** The first /30 in the range none of whose four addresses an interface here has. */
  private static int freeNetwork(String ip) throws IOException, InterruptedException {
    Set<String> used = new HashSet<>();
    Matcher inet =
        Pattern.compile("inet (\\d+\\.\\d+\\.\\d+\\.\\d+)").matcher(run(ip, "-4", "-o", "addr"));
    while (inet.find()) {
      used.add(inet.group(1));
    }
    for (int i = 0; i < NETWORKS; i++) {
      int network = FIRST_NETWORK + 4 * i;
      boolean free = true;
      for (int host = 0; host < 4; host++) {
        free &= !used.contains(dotted(network + host));
      }
      if (free) {
        return network;
      }
    }
    throw new IllegalStateException("every /30 of 10.213.0.0/16 is taken on this machine");
  }

  private static String dotted(int address) {
    return (address >>> 24)
        + "."
        + ((address >>> 16) & 0xff)
        + "."
        + ((address >>> 8) & 0xff)
        + "."
        + (address & 0xff);
  }

  /** iproute2's {@code ip}, where Debian puts it or on the PATH. */
  private static String findIp() {
    List<Path> candidates = new ArrayList<>(List.of(Path.of("/usr/sbin/ip"), Path.of("/sbin/ip")));
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!dir.isEmpty()) {
        candidates.add(Path.of(dir, "ip"));
      }
    }
    return candidates.stream()
        .filter(Files::isExecutable)
        .findFirst()
        .map(Path::toString)
        .orElseThrow(() -> unavailable("iproute2's ip command is not installed"));
  }

  private static IllegalStateException unavailable(String why) {
    return new IllegalStateException(
        "cannot make a network namespace for this test: "
            + why
            + ". Tests that run Dubbo applications run them in a network namespace of their own"
            + " (Dubbo will not register a loopback address, and tests send traffic only to"
            + " 127.0.0.0/8 or to namespaces they make), which needs root and `ip netns`"
            + " (iproute2); see sluice-e2e/README.md.");
  }

  /** Runs an {@code ip} command; its output, or a failure that says why it cannot be done. */
  private static String run(String... command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw unavailable(String.join(" ", command) + " did not finish within 30 s");
    }
    if (process.exitValue() != 0) {
      throw unavailable(String.join(" ", command) + " failed: " + output.trim());
    }
    return output;
  }

  private static Optional<String> runQuietly(String... command) {
    try {
      return Optional.of(run(command));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }
}
