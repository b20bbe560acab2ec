package io.sluice.server.protocol.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.server.protocol.ClientFaultLog;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.impl.Http1xServerConnection;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Closes an HTTP connection whose request headers do not arrive whole within a bound of their first
 * byte (a slowloris client trickles them a byte at a time, each byte resetting the idle timeout, to
 * hold the connection forever). A keep-alive connection waiting quietly for its next request is not
 * affected (the idle timeout bounds that), nor is a request body being read or a response being
 * written: the clock runs only while a connection with no request in flight receives bytes.
 *
 * <p>A Netty handler at the front of each connection's pipeline (reached through Vert.x's {@code
 * Http1xServerConnection}, an internal type) sees the bytes arrive; the request handler tells it
 * when the headers are complete and when a response ends. Concurrency: everything for one
 * connection runs on its event loop, so the handler's fields need no synchronization.
 */
final class HeaderTimeout {
  private static final String HANDLER_NAME = "sluice-header-timeout";

  private final long timeoutNanos;
  private final ClientFaultLog faults;

  HeaderTimeout(Duration timeout, ClientFaultLog faults) {
    this.timeoutNanos = timeout.toNanos();
    this.faults = faults;
  }

  /**
   * Starts watching a new HTTP/1.x connection; called on its event loop. (HTTP/2 multiplexes
   * requests and pings on one connection, so there is no "between requests" to time.)
   */
  void watch(HttpConnection connection) {
    if (connection instanceof Http1xServerConnection http1) {
      http1.channel().pipeline().addFirst(HANDLER_NAME, new Watch());
    }
  }

  /** The request's headers are complete; the clock stops until its response ends. */
  void requestArrived(HttpServerRequest request) {
    if (!(request.connection() instanceof Http1xServerConnection http1)) {
      return;
    }
    Channel channel = http1.channel();
    if (!(channel.pipeline().get(HANDLER_NAME) instanceof Watch watch)) {
      return;
    }
    watch.requestStarted();
    // A response has one end handler, and RequestTiming holds it; the body end comes with it (a
    // connection closed before that takes this watch with it).
    request.response().bodyEndHandler(ended -> watch.requestEnded());
  }

  private final class Watch extends ChannelInboundHandlerAdapter {
    private int inFlight;

    /** Bytes arrived with no request in flight, and no request has started since. */
    private boolean unclaimedBytes;

    private ScheduledFuture<?> deadline;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
      if (inFlight == 0) {
        unclaimedBytes = true;
      }
      ctx.fireChannelRead(message);
    }

    /**
     * After a read, not after each buffer: a whole request that arrived in it has started by now
     * (the decoder runs inside the read), so the common case arms no timer at all.
     */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      if (unclaimedBytes && inFlight == 0 && deadline == null) {
        deadline = ctx.executor().schedule(() -> expire(ctx), timeoutNanos, TimeUnit.NANOSECONDS);
      }
      unclaimedBytes = false;
      ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      cancel();
      ctx.fireChannelInactive();
    }

    void requestStarted() {
      inFlight++;
      unclaimedBytes = false;
      cancel();
    }

    void requestEnded() {
      if (inFlight > 0) {
        inFlight--;
      }
    }

    private void expire(ChannelHandlerContext ctx) {
      deadline = null;
      if (inFlight == 0) {
        faults.note(
            "HTTP header timeout",
            ctx.channel().remoteAddress()
                + ": request headers not complete within "
                + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                + " ms of their first byte; connection closed");
        ctx.close();
      }
    }

    private void cancel() {
      if (deadline != null) {
        deadline.cancel(false);
        deadline = null;
      }
    }
  }
}
