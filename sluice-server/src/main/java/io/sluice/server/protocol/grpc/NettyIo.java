package io.sluice.server.protocol.grpc;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;

/**
 * The I/O transport the gRPC port runs on, chosen once at start from what {@code --io} asks and
 * what this machine can load: Netty's native epoll or Java NIO. It makes the event loops' handlers
 * and the listening channel, which must be of the same kind (an epoll channel registers only with
 * an epoll loop).
 */
public final class NettyIo {
  private final IoTransport requested;
  private final boolean epoll;
  private final String fallbackReason;

  private NettyIo(IoTransport requested, boolean epoll, String fallbackReason) {
    this.requested = requested;
    this.epoll = epoll;
    this.fallbackReason = fallbackReason;
  }

  /**
   * The transport for {@code requested} on this machine.
   *
   * @throws IllegalStateException when {@link IoTransport#EPOLL} is asked for and Netty cannot load
   *     its native epoll library here, with Netty's reason
   */
  public static NettyIo choose(IoTransport requested) {
    boolean available = Epoll.isAvailable();
    return choose(requested, available, available ? null : Epoll.unavailabilityCause());
  }

  /** {@link #choose(IoTransport)} with the availability given, for tests. */
  static NettyIo choose(IoTransport requested, boolean epollAvailable, Throwable unavailable) {
    return switch (requested) {
      case NIO -> new NettyIo(requested, false, null);
      case EPOLL -> {
        if (!epollAvailable) {
          throw new IllegalStateException(
              "--io epoll: Netty's native epoll transport cannot be used here ("
                  + reason(unavailable)
                  + "); --io nio or --io auto run on Java NIO");
        }
        yield new NettyIo(requested, true, null);
      }
      case AUTO ->
          epollAvailable
              ? new NettyIo(requested, true, null)
              : new NettyIo(requested, false, reason(unavailable));
    };
  }

  /** What is used: {@link IoTransport#EPOLL} or {@link IoTransport#NIO}. */
  public IoTransport transport() {
    return epoll ? IoTransport.EPOLL : IoTransport.NIO;
  }

  /** What was asked for. */
  public IoTransport requested() {
    return requested;
  }

  /** The event loops' I/O handlers. */
  IoHandlerFactory handlers() {
    return epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
  }

  /** A new, unregistered listening channel for loops made with {@link #handlers()}. */
  ServerChannel newServerChannel() {
    return epoll ? new EpollServerSocketChannel() : new NioServerSocketChannel();
  }

  /** For the start-up log: what runs, what was asked, and why auto fell back when it did. */
  String describe() {
    String name = epoll ? "Netty's native epoll transport" : "Java NIO";
    return fallbackReason == null
        ? name + " (--io " + requested + ")"
        : name + " (--io " + requested + ": native epoll unavailable: " + fallbackReason + ")";
  }

  @Override
  public String toString() {
    return transport().optionValue();
  }

  private static String reason(Throwable cause) {
    if (cause == null) {
      return "no reason given";
    }
    String message = cause.getMessage() != null ? cause.getMessage() : cause.toString();
    return message.replace('\n', ' ');
  }
}
