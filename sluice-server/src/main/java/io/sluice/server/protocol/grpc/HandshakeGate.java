package io.sluice.server.protocol.grpc;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ServerChannel;
import io.sluice.server.protocol.ClientFaultLog;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds the sockets the gRPC port holds. A socket accepted but not yet through its handshake (TLS
 * if any, then the HTTP/2 preface and first SETTINGS) is <em>pending</em>: at most {@code
 * maxPending} of them, and at most {@code maxPendingPerAddress} from one source address, so one
 * client opening sockets and never speaking can neither exhaust the file descriptors nor lock other
 * clients out. A handshaked transport is <em>established</em>: at most {@code maxEstablished}. A
 * socket beyond a bound is closed at once (before gRPC sees it, for a pending one), noted once in
 * the rate-limited {@link ClientFaultLog}. Pending sockets that stay silent are closed by gRPC's
 * handshake timeout, which frees their place.
 *
 * <p>Sockets are counted where the server channel accepts them ({@link #guard}, ahead of Netty's
 * acceptor, on NIO and native epoll alike), moved to established when gRPC reports the transport
 * ready ({@link #handshaked}, from a transport filter, which knows the transport by its addresses
 * only), and uncounted when they close.
 *
 * <p>Concurrency: accepts run on the one boss thread, handshakes and closes on the socket's event
 * loop; the counts are atomic and a socket's own state ({@link Admitted#established}) is only
 * touched on its event loop, after registration.
 */
final class HandshakeGate {
  private final int maxPending;
  private final int maxPendingPerAddress;
  private final int maxEstablished;
  private final ClientFaultLog faults;
  private final AtomicInteger pending = new AtomicInteger();
  private final AtomicInteger established = new AtomicInteger();

  /** Pending sockets per source address; an address leaves the map when it has none. */
  private final Map<InetAddress, AtomicInteger> pendingBySource = new ConcurrentHashMap<>();

  /** The listening channel whose accepts pass here: set when the port binds, read by any. */
  private volatile ServerChannel guarded;

  /** Every admitted open socket, by its two ends (what a transport filter can see of it). */
  private final Map<Ends, Admitted> open = new ConcurrentHashMap<>();

  private record Ends(SocketAddress remote, SocketAddress local) {}

  private static final class Admitted {
    final Channel channel;
    final InetAddress source;
    boolean established;

    Admitted(Channel channel, InetAddress source) {
      this.channel = channel;
      this.source = source;
    }
  }

  HandshakeGate(
      int maxPending, int maxPendingPerAddress, int maxEstablished, ClientFaultLog faults) {
    this.maxPending = maxPending;
    this.maxPendingPerAddress = maxPendingPerAddress;
    this.maxEstablished = maxEstablished;
    this.faults = faults;
  }

  /** Sockets accepted and not yet through their handshake. */
  int handshaking() {
    return pending.get();
  }

  /** Handshaked transports open now. */
  int established() {
    return established.get();
  }

  /**
   * Makes {@code channel}, a listening channel not yet registered, pass the sockets it accepts
   * through this gate before gRPC gets them; returns it.
   */
  <C extends ServerChannel> C guard(C channel) {
    // Added now, ahead of the acceptor that ServerBootstrap appends at registration.
    channel.pipeline().addLast(new AcceptHandler());
    guarded = channel;
    return channel;
  }

  /** The listening channel last given to {@link #guard}, or null before the port binds. */
  ServerChannel guarded() {
    return guarded;
  }

  /** Called when gRPC reports the transport between these addresses handshaked. */
  void handshaked(SocketAddress remote, SocketAddress local) {
    Admitted admitted = open.get(new Ends(remote, local));
    if (admitted == null || admitted.established) {
      return;
    }
    admitted.established = true;
    releasePending(admitted.source);
    if (established.incrementAndGet() > maxEstablished) {
      faults.note(
          "gRPC connection refused",
          describe(remote) + ": " + maxEstablished + " gRPC connections already (max)");
      // Closed after gRPC's own handling of this event, not in the middle of it, and at once:
      // from the pipeline's first handler, so the close skips gRPC's handlers. Through them,
      // grpc-java would close gracefully (GOAWAY, then a ping the peer must acknowledge, up to
      // 10 s), and a client that never acknowledges would hold the refused socket that long.
      Channel channel = admitted.channel;
      channel
          .eventLoop()
          .execute(
              () -> {
                ChannelHandlerContext first = channel.pipeline().firstContext();
                if (first != null) {
                  first.close();
                } else {
                  channel.close();
                }
              });
    }
  }

  /** Admits {@code child}, or closes it at once when a bound on pending sockets is reached. */
  private boolean admit(Channel child) {
    SocketAddress remote = child.remoteAddress();
    InetAddress source = remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
    if (pending.incrementAndGet() > maxPending) {
      pending.decrementAndGet();
      faults.note(
          "gRPC socket refused before its handshake",
          describe(remote) + ": " + maxPending + " sockets already handshaking (max)");
      return false;
    }
    if (source != null && !reservePending(source)) {
      pending.decrementAndGet();
      faults.note(
          "gRPC socket refused before its handshake",
          describe(remote)
              + ": "
              + maxPendingPerAddress
              + " sockets from that address already handshaking (max)");
      return false;
    }
    Ends ends = new Ends(remote, child.localAddress());
    Admitted admitted = new Admitted(child, source);
    open.put(ends, admitted);
    child
        .closeFuture()
        .addListener(
            closed -> {
              open.remove(ends, admitted);
              if (admitted.established) {
                established.decrementAndGet();
              } else {
                releasePending(source);
              }
            });
    return true;
  }

  private boolean reservePending(InetAddress source) {
    boolean[] reserved = {false};
    pendingBySource.compute(
        source,
        (address, count) -> {
          AtomicInteger now = count == null ? new AtomicInteger() : count;
          if (now.get() < maxPendingPerAddress) {
            now.incrementAndGet();
            reserved[0] = true;
          }
          return now.get() == 0 ? null : now;
        });
    return reserved[0];
  }

  private void releasePending(InetAddress source) {
    pending.decrementAndGet();
    if (source != null) {
      pendingBySource.computeIfPresent(
          source, (address, count) -> count.decrementAndGet() <= 0 ? null : count);
    }
  }

  private static String describe(SocketAddress remote) {
    return remote instanceof InetSocketAddress inet && inet.getAddress() != null
        ? inet.getAddress().getHostAddress()
        : String.valueOf(remote);
  }

  /** Sees each accepted socket before Netty's acceptor registers it with a worker loop. */
  @ChannelHandler.Sharable
  private final class AcceptHandler extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext context, Object message) {
      if (message instanceof Channel child && !admit(child)) {
        // Not registered yet: closing it only releases the socket.
        child.unsafe().closeForcibly();
        return;
      }
      context.fireChannelRead(message);
    }
  }
}
