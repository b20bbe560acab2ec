package io.sluice.bench.load;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * What held HTTP long-polls cost a running server: opens {@code polls} plain HTTP/1.1 connections,
 * each sending one config listener request (`POST /nacos/v1/cs/configs/listener`) for a config that
 * does not exist, which the server holds for the whole {@code Long-Pulling-Timeout}; then prints
 * the server's RSS every few seconds while they are held.
 *
 * <pre>
 * taskset -c 0 bin/sluice server --port 28848 --data-dir /tmp/hp &amp;  PID=$!
 * taskset -c 1 java -cp sluice-bench/target/benchmarks.jar io.sluice.bench.load.HeldPollFootprint \
 *     127.0.0.1:28848 $PID 10000 60
 * </pre>
 *
 * Arguments: server address (HTTP port), server PID, held polls, seconds to hold them (the requests
 * ask for a longer hold, so none is answered meanwhile). Each poll takes one file descriptor here
 * and one in the server.
 */
public final class HeldPollFootprint {
  private static final int SAMPLE_EVERY_SECONDS = 5;

  private HeldPollFootprint() {}

  public static void main(String[] args) throws Exception {
    String[] hostPort = args[0].split(":");
    InetSocketAddress server = new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
    ProcessProbe probe = new ProcessProbe(Long.parseLong(args[1]));
    int polls = Integer.parseInt(args[2]);
    int holdSeconds = Integer.parseInt(args[3]);

    byte[] request = listenerRequest(TimeUnit.SECONDS.toMillis(holdSeconds + 60L));
    ProcessProbe.Sample idle = probe.sample();
    List<SocketChannel> held = new ArrayList<>(polls);
    try {
      long start = System.nanoTime();
      for (int i = 0; i < polls; i++) {
        SocketChannel channel = SocketChannel.open(server);
        held.add(channel);
        ByteBuffer buffer = ByteBuffer.wrap(request);
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
      }
      System.out.printf(
          Locale.ROOT,
          "held polls: %d opened in %.1f s; server RSS idle %.1f MiB%n",
          polls,
          (System.nanoTime() - start) / 1e9,
          mib(idle));
      for (int elapsed = SAMPLE_EVERY_SECONDS;
          elapsed <= holdSeconds;
          elapsed += SAMPLE_EVERY_SECONDS) {
        TimeUnit.SECONDS.sleep(SAMPLE_EVERY_SECONDS);
        ProcessProbe.Sample now = probe.sample();
        System.out.printf(
            Locale.ROOT,
            "after %3d s: server RSS %.1f MiB (%.1f KiB per held poll above idle), threads %d%n",
            elapsed,
            mib(now),
            (now.rssBytes() - idle.rssBytes()) / 1024.0 / polls,
            now.threads());
      }
    } finally {
      for (SocketChannel channel : held) {
        closeQuietly(channel);
      }
    }
  }

  /** A listener request for a config that does not exist, with an empty md5: nothing changed. */
  static byte[] listenerRequest(long holdMillis) {
    String listening =
        URLEncoder.encode(
            "footprint-absent.json\u0002FOOTPRINT_GROUP\u0002\u0001", StandardCharsets.UTF_8);
    String body = "Listening-Configs=" + listening;
    String request =
        "POST /nacos/v1/cs/configs/listener HTTP/1.1\r\n"
            + "Host: sluice\r\n"
            + "Long-Pulling-Timeout: "
            + holdMillis
            + "\r\n"
            + "Content-Type: application/x-www-form-urlencoded\r\n"
            + "Content-Length: "
            + body.length()
            + "\r\n\r\n"
            + body;
    return request.getBytes(StandardCharsets.US_ASCII);
  }

  private static double mib(ProcessProbe.Sample sample) {
    return sample.rssBytes() / (1024.0 * 1024.0);
  }

  private static void closeQuietly(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException ignored) {
      // The measurement is over; a socket that will not close is the OS's to reclaim.
    }
  }
}
