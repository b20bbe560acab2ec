package io.sluice.bench.agent;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

/**
 * Fixed-arrival-rate HTTP/1.1 GETs over kept-alive connections, lean enough to offer 5,000 requests
 * a second from one core (the JDK's {@code HttpClient} tops out near 2,000 here, which is why
 * Sentinel's reference rates of 3,000 and 5,000 could not be driven with it).
 *
 * <p>Two threads: a pacer that sleeps until each request's due time ({@code start + i/rate}) and
 * then publishes "requests up to i are due", waking the selector; and the I/O thread, which blocks
 * in {@code select} and so reads a response the moment it arrives. A due request goes out on a free
 * connection, or waits in order for one; its latency counts from its due time either way (no
 * coordinated omission). One request per connection at a time (no pipelining), as a browser or the
 * JDK's client does; a connection the server closes (Tomcat closes one after 100 requests by
 * default) is replaced by a new one, and a request it was carrying without an answer counts as a
 * transport error.
 *
 * <p>Invariants: the pacer never blocks on the network; every request ends with a status (the HTTP
 * status, or -1 for a transport error or no answer by the deadline); results are written only by
 * the I/O thread and read after it has finished.
 */
final class Http1OpenLoop {
  /** Enough for 5,000 req/s at up to ~12 ms per request without queueing. */
  static final int DEFAULT_CONNECTIONS = 64;

  private static final int BUFFER = 16 * 1024;

  private Http1OpenLoop() {}

  /**
   * Offers {@code rate × seconds} requests to {@code server}, request {@code i} for {@code
   * path.apply(i)}, and waits up to {@code drainNanos} after the last one is due for the answers.
   */
  static SentinelComparison.Load run(
      InetSocketAddress server,
      IntFunction<String> path,
      double rate,
      int seconds,
      int connections,
      long drainNanos)
      throws IOException, InterruptedException {
    int total = (int) (rate * seconds);
    double interval = 1e9 / rate;
    try (Selector selector = Selector.open()) {
      Connection[] pool = new Connection[connections];
      ArrayDeque<Connection> free = new ArrayDeque<>(connections);
      for (int c = 0; c < connections; c++) {
        pool[c] = new Connection(server, selector);
        free.add(pool[c]);
      }
      long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
      SentinelComparison.Load load = new SentinelComparison.Load(total, start);
      for (int i = 0; i < total; i++) {
        load.dueOffsetNanos[i] = (long) (i * interval);
      }
      Pacer pacer = new Pacer(load, selector);
      pacer.start();
      int sent = 0;
      int done = 0;
      long deadline = start + load.dueOffsetNanos[Math.max(0, total - 1)] + drainNanos;
      while (done < total) {
        long now = System.nanoTime();
        if (now - deadline > 0) {
          break;
        }
        int due = pacer.due;
        while (sent < due && !free.isEmpty()) {
          Connection connection = free.poll();
          if (!connection.send(sent, path.apply(sent), server)) {
            load.status[sent] = -1;
            load.latencyNanos[sent] = System.nanoTime() - (start + load.dueOffsetNanos[sent]);
            done++;
            connection.reconnect(server, selector);
            free.add(connection);
          }
          sent++;
        }
        if (sent == total && load.sendNanos == 0) {
          load.sendNanos = System.nanoTime() - start;
        }
        // Woken by an answer, or by the pacer when a request falls due.
        selector.select(100);
        var keys = selector.selectedKeys();
        for (SelectionKey key : keys) {
          Connection connection = (Connection) key.attachment();
          int finished = connection.read();
          if (finished == Connection.IDLE) {
            continue;
          }
          long at = System.nanoTime();
          int index = connection.request;
          connection.request = -1;
          if (connection.closing) {
            connection.reconnect(server, selector);
          }
          if (index < 0) {
            continue; // an idle connection the server closed: replaced, and still in the free list
          }
          load.latencyNanos[index] = at - (start + load.dueOffsetNanos[index]);
          load.status[index] = finished;
          load.completed.incrementAndGet();
          done++;
          free.add(connection);
        }
        keys.clear();
      }
      pacer.interrupt();
      pacer.join();
      if (load.sendNanos == 0) {
        load.sendNanos = System.nanoTime() - start;
      }
      for (int i = 0; i < total; i++) {
        if (load.status[i] == 0) {
          load.status[i] = -1;
        }
      }
      for (Connection connection : pool) {
        connection.close();
      }
      return load;
    }
  }

  /** Publishes how many requests are due, waking the selector at each due time. */
  private static final class Pacer extends Thread {
    private final SentinelComparison.Load load;
    private final Selector selector;
    volatile int due;

    Pacer(SentinelComparison.Load load, Selector selector) {
      super("http1-open-loop-pacer");
      setDaemon(true);
      this.load = load;
      this.selector = selector;
    }

    @Override
    public void run() {
      long[] offsets = load.dueOffsetNanos;
      for (int i = 0; i < offsets.length && !isInterrupted(); i++) {
        long dueAt = load.startNanos + offsets[i];
        long wait;
        while ((wait = dueAt - System.nanoTime()) > 0) {
          LockSupport.parkNanos(wait);
        }
        due = i + 1;
        selector.wakeup();
      }
    }
  }

  /** One kept-alive connection and the answer it is reading. */
  private static final class Connection {
    static final int IDLE = 0;

    private final ByteBuffer in = ByteBuffer.allocate(BUFFER);
    private SocketChannel channel;
    int request = -1;
    boolean closing;

    Connection(InetSocketAddress server, Selector selector) throws IOException {
      open(server, selector);
    }

    private void open(InetSocketAddress server, Selector selector) throws IOException {
      channel = SocketChannel.open(server);
      channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
      channel.configureBlocking(false);
      channel.register(selector, SelectionKey.OP_READ, this);
      in.clear();
      closing = false;
    }

    void reconnect(InetSocketAddress server, Selector selector) {
      close();
      try {
        open(server, selector);
      } catch (IOException e) {
        closing = true; // the next send fails and tries again
      }
    }

    /** False if the request could not be written whole. */
    boolean send(int index, String path, InetSocketAddress server) {
      if (closing || !channel.isOpen()) {
        return false;
      }
      byte[] bytes =
          ("GET "
                  + path
                  + " HTTP/1.1\r\nHost: "
                  + server.getHostString()
                  + ":"
                  + server.getPort()
                  + "\r\nAccept: application/json\r\n\r\n")
              .getBytes(StandardCharsets.ISO_8859_1);
      ByteBuffer out = ByteBuffer.wrap(bytes);
      try {
        // A request of ~100 bytes fits the empty socket buffer of an idle connection.
        for (int spins = 0; out.hasRemaining() && spins < 1000; spins++) {
          channel.write(out);
        }
      } catch (IOException e) {
        return false;
      }
      if (out.hasRemaining()) {
        return false;
      }
      request = index;
      return true;
    }

    /**
     * Reads what arrived: {@link #IDLE} while the answer is incomplete, else its status (-1 when
     * the connection ended first), after which {@link #closing} says whether to replace it.
     */
    int read() {
      int n;
      try {
        n = channel.read(in);
      } catch (IOException e) {
        n = -1;
      }
      if (n < 0) {
        closing = true;
        in.clear();
        return -1;
      }
      int status = Responses.complete(in.array(), in.position());
      if (status == IDLE) {
        if (!in.hasRemaining()) {
          closing = true; // an answer larger than the buffer: not what this driver is for
          in.clear();
          return -1;
        }
        return IDLE;
      }
      closing = Responses.asksToClose(in.array(), in.position());
      in.clear();
      return status;
    }

    void close() {
      try {
        channel.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
  }

  /** Finds where an HTTP/1.1 response ends in a buffer that holds its start. */
  static final class Responses {
    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] CRLF_CRLF = {'\r', '\n', '\r', '\n'};

    private Responses() {}

    /** The status of the response in {@code buf[0, length)} if it is complete there, else 0. */
    static int complete(byte[] buf, int length) {
      int headerEnd = indexOf(buf, length, CRLF_CRLF, 0);
      if (headerEnd < 0 || length < 12) {
        return 0;
      }
      int bodyStart = headerEnd + 4;
      String head = new String(buf, 0, headerEnd, StandardCharsets.ISO_8859_1);
      int status = Integer.parseInt(head.substring(9, 12));
      String lower = head.toLowerCase(java.util.Locale.ROOT);
      int end;
      int lengthAt = lower.indexOf("\r\ncontent-length:");
      if (lengthAt >= 0) {
        int valueEnd = lower.indexOf("\r\n", lengthAt + 2);
        long contentLength =
            Long.parseLong(
                lower.substring(lengthAt + 17, valueEnd < 0 ? lower.length() : valueEnd).trim());
        end = (int) Math.min(Integer.MAX_VALUE, bodyStart + contentLength);
      } else if (lower.contains("\r\ntransfer-encoding: chunked")) {
        end = chunkedEnd(buf, length, bodyStart);
      } else if (status == 204 || status == 304) {
        end = bodyStart;
      } else {
        return 0; // ends when the connection does: not what this driver is for
      }
      if (end < 0 || end > length) {
        return 0;
      }
      return status;
    }

    /** Whether the complete response at the start of {@code buf} says {@code Connection: close}. */
    static boolean asksToClose(byte[] buf, int length) {
      int headerEnd = indexOf(buf, length, CRLF_CRLF, 0);
      return headerEnd >= 0
          && new String(buf, 0, headerEnd, StandardCharsets.ISO_8859_1)
              .toLowerCase(java.util.Locale.ROOT)
              .contains("\r\nconnection: close");
    }

    /** Where a chunked body starting at {@code from} ends, or -1 if not all there. */
    static int chunkedEnd(byte[] buf, int length, int from) {
      int at = from;
      while (true) {
        int lineEnd = indexOf(buf, length, CRLF, at);
        if (lineEnd < 0) {
          return -1;
        }
        String sizeLine = new String(buf, at, lineEnd - at, StandardCharsets.ISO_8859_1);
        int semicolon = sizeLine.indexOf(';');
        int size =
            Integer.parseInt(
                (semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
        if (size == 0) {
          // the last chunk, then trailer lines if any, then an empty line
          int end = indexOf(buf, length, CRLF_CRLF, lineEnd);
          return end < 0 ? -1 : end + 4;
        }
        at = lineEnd + 2 + size + 2;
        if (at > length) {
          return -1;
        }
      }
    }

    private static int indexOf(byte[] buf, int length, byte[] pattern, int from) {
      outer:
      for (int i = from; i <= length - pattern.length; i++) {
        for (int j = 0; j < pattern.length; j++) {
          if (buf[i + j] != pattern[j]) {
            continue outer;
          }
        }
        return i;
      }
      return -1;
    }
  }
}
