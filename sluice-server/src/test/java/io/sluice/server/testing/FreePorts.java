package io.sluice.server.testing;

import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Starts servers under test that cannot bind port 0 themselves, without racing anything else for
 * their ports: sluice-server (the Nacos clients derive its gRPC port as HTTP + 1000, and a node's
 * Raft port is HTTP − 1000), a cluster of them, a browser driver.
 *
 * <p>A port found free by binding it and closing the socket is free only until someone else binds
 * it. So nothing here reserves a port: a start is tried on a candidate, and when it fails because a
 * port was taken (the failure says "already in use", or is a {@link BindException}) it is tried
 * again on new candidates, at most {@value #ATTEMPTS} times. The caller's start must clean up after
 * a failed attempt (close what it started, wipe what it wrote under the old ports).
 *
 * <p>Candidates (with their companions) lie between {@value #LOWEST} and {@value #HIGHEST}, below
 * the kernel's ephemeral range (from {@code /proc/sys/net/ipv4/ip_local_port_range}, 32768 by
 * default; lower if it starts lower), never in it: the kernel hands out ports from that range to
 * every bind of port 0 and every outgoing connection on the machine, so the only ones that could
 * take a candidate are other fixtures choosing candidates the same way, and they retry too. That
 * also makes a restart on the same port (a server killed and started again over its data, which its
 * clients must find where it was) safe from the kernel's choices.
 */
public final class FreePorts {
  /** How many candidates one start tries before it fails. */
  static final int ATTEMPTS = 8;

  /** The lowest port handed out (a Raft port, HTTP − 1000). */
  static final int LOWEST = 10_000;

  /**
   * The highest port handed out (a gRPC port, HTTP + 1000): the rest up to the kernel's range is
   * left to fixtures that hand out fixed ports where nothing else can bind (a network namespace's
   * own, in sluice-e2e).
   */
  static final int HIGHEST = 31_000;

  /** gRPC above and Raft below the HTTP port ({@link ServerOptions}). */
  private static final int COMPANION_OFFSET = ServerOptions.GRPC_PORT_OFFSET;

  private FreePorts() {}

  /** A start on candidate ports; it cleans up after itself when it fails. */
  @FunctionalInterface
  public interface Start<T, E extends Exception> {
    T on(int port) throws E;
  }

  /** A start of several servers at once, one candidate HTTP port each. */
  @FunctionalInterface
  public interface StartAll<T, E extends Exception> {
    T on(int[] ports) throws E;
  }

  /**
   * Starts a server on an HTTP port whose gRPC (+1000) and Raft (−1000) companions are free too,
   * retrying on new candidates while the failure says a port was taken.
   */
  public static <T, E extends Exception> T onHttpPort(Start<T, E> start) throws E {
    return onHttpPorts(1, ports -> start.on(ports[0]));
  }

  /**
   * Starts {@code count} servers, each on its own HTTP port with its companions, none sharing a
   * port with another; all are tried again on new candidates while a failure says a port was taken.
   */
  public static <T, E extends Exception> T onHttpPorts(int count, StartAll<T, E> start) throws E {
    return retrying(count, COMPANION_OFFSET, start);
  }

  /** Starts something listening on one port (a browser driver), retrying as above. */
  public static <T, E extends Exception> T onPort(Start<T, E> start) throws E {
    return retrying(1, 0, ports -> start.on(ports[0]));
  }

  /**
   * Starts sluice-server in this JVM with {@code options} on free ports: HTTP, and gRPC on HTTP +
   * 1000 as the Nacos clients derive it; tried again on new ports while one was taken. (A
   * standalone server opens no Raft port; a cluster node's, HTTP − 1000, is checked by its
   * process's start.)
   */
  public static SluiceServer startServer(ServerOptions.Builder options) {
    return onHttpPort(port -> SluiceServer.start(options.httpPort(port).build()));
  }

  /**
   * A port below the ephemeral range that nothing listens on now, for a test that must name a port
   * before anything binds it and cannot start again elsewhere (an instance registered on a closed
   * port, in-JVM Raft peers that list one another): the kernel never hands it out, so only another
   * fixture choosing at the same moment could take it. Prefer {@link #onPort} where a start can be
   * tried again.
   */
  public static int unusedPort() {
    return candidates(1, 0)[0];
  }

  /**
   * Whether {@code failure} (or a cause) says a port was taken: a {@link BindException}, or a
   * message with "already in use" (the JDK's and Netty's "Address already in use", Spring Boot's
   * "Port N was already in use", a server process's output quoted in an assertion).
   */
  public static boolean saysAPortIsTaken(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof BindException || t instanceof PortTakenException) {
        return true;
      }
      String message = t.getMessage();
      if (message != null && message.toLowerCase(Locale.ROOT).contains("already in use")) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  private static <T, E extends Exception> T retrying(
      int count, int companionOffset, StartAll<T, E> start) throws E {
    for (int attempt = 1; ; attempt++) {
      int[] ports = candidates(count, companionOffset);
      try {
        return start.on(ports);
      } catch (Exception | AssertionError failure) {
        if (attempt >= ATTEMPTS || !saysAPortIsTaken(failure)) {
          throw failure;
        }
        System.err.printf(
            "FreePorts: a port of %s was taken meanwhile (attempt %d of %d), trying others: %s%n",
            java.util.Arrays.toString(ports), attempt, ATTEMPTS, firstLine(failure));
      }
    }
  }

  /**
   * {@code count} ports at least 3 × offset apart from one another, each with its companions below
   * the ephemeral range and (a cheap first filter, not a reservation) free right now.
   */
  static int[] candidates(int count, int companionOffset) {
    int highest = Math.min(HIGHEST, ephemeralRangeStart() - 1) - companionOffset;
    int lowest = LOWEST + companionOffset;
    if (highest - lowest < 1000) {
      throw new IllegalStateException(
          "too few ports below the ephemeral range (from "
              + ephemeralRangeStart()
              + ") to choose from");
    }
    int[] ports = new int[count];
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int i = 0; i < count; i++) {
      for (int tries = 0; ; tries++) {
        int candidate = lowest + random.nextInt(highest - lowest + 1);
        if (!overlaps(ports, i, candidate, companionOffset)
            && isFree(candidate)
            && (companionOffset == 0
                || (isFree(candidate + companionOffset) && isFree(candidate - companionOffset)))) {
          ports[i] = candidate;
          break;
        }
        if (tries > 1000) {
          throw new IllegalStateException("no free port found below the ephemeral range");
        }
      }
    }
    return ports;
  }

  private static boolean overlaps(int[] chosen, int count, int candidate, int offset) {
    for (int i = 0; i < count; i++) {
      if (Math.abs(chosen[i] - candidate) <= 2 * offset) {
        return true;
      }
    }
    return false;
  }

  /** The first port the kernel hands out for port 0 and outgoing connections. */
  static int ephemeralRangeStart() {
    // Read line-wise: procfs reports a size of 0, which whole-file reads can trip over.
    try (BufferedReader reader =
        Files.newBufferedReader(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
      int start = Integer.parseInt(reader.readLine().trim().split("\\s+")[0]);
      return start > LOWEST ? start : 32_768;
    } catch (IOException | RuntimeException e) {
      return 32_768; // Linux's default
    }
  }

  /** Whether {@code port} of the loopback address can be bound now (a hint, not a reservation). */
  static boolean isFree(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static String firstLine(Throwable failure) {
    String text = String.valueOf(failure);
    int newline = text.indexOf('\n');
    return newline < 0 ? text : text.substring(0, newline);
  }

  /** A start that failed because a port was taken, said in a way the caller can retry on. */
  static final class PortTakenException extends RuntimeException {
    PortTakenException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
