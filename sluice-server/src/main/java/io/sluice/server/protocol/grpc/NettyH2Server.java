package io.sluice.server.protocol.grpc;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.server.clock.ServerClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The listening side of the {@link GrpcTransport#NETTY_H2} transport: accepts sockets through the
 * {@link HandshakeGate} (as the grpc-java transport does), adds TLS with ALPN {@code h2} when
 * configured, and gives each connection a {@link NacosH2Handler}. A socket that has not finished
 * TLS and its HTTP/2 preface within the handshake timeout is closed.
 *
 * <p>Closing stops accepting, ends every client's stream with UNAVAILABLE, sends GOAWAY and gives
 * unary calls in flight up to {@value NacosH2Handler#GRACEFUL_SHUTDOWN_MILLIS} ms.
 */
final class NettyH2Server implements GrpcServer.Listening {
  /** Pings more often than this are a strike (grpc-java's {@code permitKeepAliveTime}). */
  static final long PERMITTED_PING_INTERVAL_MINUTES = 5;

  /**
   * When a connection's socket counts as busy. The HTTP/2 flow controller moves queued answers into
   * the socket only while it is not, so with Netty's default (64 KiB) a read's burst of 16 service
   * lists of 5 KiB would be cut mid-answer, the rest written by a second flush once the first
   * drained; this fits a burst of 100 streams' answers. It bounds nothing: what the socket does not
   * take waits in the flow controller, bounded by the streams and pushes a connection may have
   * outstanding.
   */
  private static final WriteBufferWaterMark WRITE_BUFFER =
      new WriteBufferWaterMark(256 * 1024, 512 * 1024);

  private final Channel listening;
  private final ChannelGroup connections;

  private NettyH2Server(Channel listening, ChannelGroup connections) {
    this.listening = listening;
    this.connections = connections;
  }

  static NettyH2Server start(
      InetSocketAddress address,
      EventLoopGroup boss,
      EventLoopGroup workers,
      ChannelFactory<ServerChannel> serverChannels,
      SslContext tls,
      HandshakeGate gate,
      NacosCalls calls,
      int maxMessageBytes,
      long handshakeTimeoutMillis,
      ServerClock clock) {
    ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(boss, workers)
            .channelFactory(serverChannels)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.SO_KEEPALIVE, true)
            .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WRITE_BUFFER)
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel channel) {
                    connections.add(channel);
                    NacosH2Handler handler =
                        NacosH2Handler.create(calls, gate, clock, maxMessageBytes);
                    if (tls != null) {
                      channel.pipeline().addLast(tls.newHandler(channel.alloc()));
                      channel.pipeline().addLast(new AlpnCheck(calls));
                    }
                    channel.pipeline().addLast(handler);
                    ScheduledFuture<?> timeout =
                        channel
                            .eventLoop()
                            .schedule(
                                () -> {
                                  if (!handler.handshaked()) {
                                    channel.close();
                                  }
                                },
                                handshakeTimeoutMillis,
                                TimeUnit.MILLISECONDS);
                    channel.closeFuture().addListener(closed -> timeout.cancel(false));
                  }
                });
    try {
      Channel listening = bootstrap.bind(address).sync().channel();
      return new NettyH2Server(listening, connections);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while binding the gRPC port", e);
    } catch (Exception e) {
      throw new UncheckedIOException(
          "cannot listen on gRPC port " + address.getHostString() + ":" + address.getPort(),
          e instanceof IOException io ? io : new IOException(e));
    }
  }

  @Override
  public int port() {
    return ((InetSocketAddress) listening.localAddress()).getPort();
  }

  @Override
  public void close() {
    listening.close().awaitUninterruptibly();
    for (Channel channel : connections) {
      NacosH2Handler handler = channel.pipeline().get(NacosH2Handler.class);
      if (handler == null) {
        channel.close();
      } else {
        channel.eventLoop().execute(handler::shutDown);
      }
    }
    connections
        .newCloseFuture()
        .awaitUninterruptibly(NacosH2Handler.GRACEFUL_SHUTDOWN_MILLIS + 1000);
  }

  /** Closes a TLS connection whose client did not choose HTTP/2 by ALPN, as grpc-java does. */
  private static final class AlpnCheck extends ChannelInboundHandlerAdapter {
    private final NacosCalls calls;

    AlpnCheck(NacosCalls calls) {
      this.calls = calls;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext context, Object event) throws Exception {
      if (event instanceof SslHandshakeCompletionEvent done && done.isSuccess()) {
        String protocol = context.pipeline().get(SslHandler.class).applicationProtocol();
        if (!ApplicationProtocolNames.HTTP_2.equals(protocol)) {
          calls
              .faults()
              .note(
                  "gRPC TLS connection refused",
                  context.channel().remoteAddress() + ": ALPN chose " + protocol + ", not h2");
          context.close();
          return;
        }
        context.pipeline().remove(this);
      }
      super.userEventTriggered(context, event);
    }
  }
}
