package io.sluice.server.protocol.grpc;

import io.grpc.Status;
import io.sluice.server.clock.ServerClock;
import io.sluice.server.protocol.grpc.ConnectionMessages.ConnectResetRequest;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One registered client connection: identified by its transport, reachable through the
 * bidirectional stream it opened with {@code ConnectionSetupRequest}.
 *
 * <p>Concurrency: pushes come from any thread; sends on the stream are serialised by {@link
 * #sendLock} because a {@link PushStream} (like a gRPC call) is not thread-safe. Pending pushes are
 * bounded by {@code maxPendingPushes}: a client that leaves that many unanswered is too slow and is
 * disconnected, so its backlog never grows the heap.
 */
public final class Connection {
  private static final Logger log = LoggerFactory.getLogger(Connection.class);

  /** Set once the client is asked to reconnect; a rebalance does not count it twice. */
  private volatile boolean resetRequested;

  private final String id;
  private final String remoteIp;
  private final int remotePort;
  private final ClientInfo client;
  private final PushStream stream;
  private final MessageCodec codec;
  private final ServerClock clock;
  private final int maxPendingPushes;
  private final PushCounts pushCounts;
  private final long connectedAtMillis;
  private final Object sendLock = new Object();
  private final Map<String, PendingPush> pending = new ConcurrentHashMap<>();
  private final AtomicLong pushIds = new AtomicLong();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicBoolean detectionInFlight = new AtomicBoolean();
  private volatile long lastActiveNanos;
  private volatile Runnable onClose = () -> {};

  Connection(
      String id,
      String remoteIp,
      int remotePort,
      ClientInfo client,
      PushStream stream,
      MessageCodec codec,
      ServerClock clock,
      int maxPendingPushes,
      PushCounts pushCounts) {
    this.id = id;
    this.remoteIp = remoteIp;
    this.remotePort = remotePort;
    this.client = client;
    this.stream = stream;
    this.codec = codec;
    this.clock = clock;
    this.maxPendingPushes = maxPendingPushes;
    this.pushCounts = pushCounts;
    this.connectedAtMillis = clock.currentTimeMillis();
    this.lastActiveNanos = clock.nanoTime();
  }

  public String id() {
    return id;
  }

  /** The transport's remote address: the client as the network sees it. */
  public String remoteIp() {
    return remoteIp;
  }

  public int remotePort() {
    return remotePort;
  }

  public ClientInfo client() {
    return client;
  }

  public long connectedAtMillis() {
    return connectedAtMillis;
  }

  public boolean isClosed() {
    return closed.get();
  }

  long lastActiveNanos() {
    return lastActiveNanos;
  }

  void touch(long nowNanos) {
    lastActiveNanos = nowNanos;
  }

  /** Claims the right to send the one idle-detection probe in flight; see {@link #probeDone}. */
  boolean startProbe() {
    return detectionInFlight.compareAndSet(false, true);
  }

  void probeDone() {
    detectionInFlight.set(false);
  }

  void onClose(Runnable onClose) {
    this.onClose = onClose;
  }

  int pendingPushes() {
    return pending.size();
  }

  /**
   * Sends a request to the client on its stream and tracks the answer. The callback learns of the
   * answer, of a timeout (checked by {@link #expirePushes}), or of the connection closing. Returns
   * false, and fails the callback, when the connection is closed or too slow.
   */
  public boolean push(NacosRequest request, long timeoutMillis, PushCallback callback) {
    if (closed.get()) {
      callback.onFailed("connection closed");
      return false;
    }
    if (pending.size() >= maxPendingPushes) {
      callback.onFailed("too many unanswered pushes");
      close("client left " + maxPendingPushes + " pushes unanswered");
      return false;
    }
    String requestId = Long.toString(pushIds.incrementAndGet());
    request.requestId = requestId;
    long deadline = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    pending.put(requestId, new PendingPush(deadline, callback));
    if (!send(request)) {
      PendingPush failed = pending.remove(requestId);
      if (failed != null) {
        failed.callback.onFailed("send failed");
      }
      return false;
    }
    pushCounts.sent.increment();
    return true;
  }

  /**
   * Like {@link #push(NacosRequest, long, PushCallback)} for a request whose JSON was encoded once
   * for many connections: the body sent is {@code {"requestId":"<id>",} followed by {@code
   * jsonAfterRequestId}, which must hold the remaining fields and the closing brace.
   */
  public boolean pushEncoded(
      String type, byte[] jsonAfterRequestId, long timeoutMillis, PushCallback callback) {
    if (closed.get()) {
      callback.onFailed("connection closed");
      return false;
    }
    if (pending.size() >= maxPendingPushes) {
      callback.onFailed("too many unanswered pushes");
      close("client left " + maxPendingPushes + " pushes unanswered");
      return false;
    }
    String requestId = Long.toString(pushIds.incrementAndGet());
    byte[] prefix = ("{\"requestId\":\"" + requestId + "\",").getBytes(StandardCharsets.US_ASCII);
    byte[] body = new byte[prefix.length + jsonAfterRequestId.length];
    System.arraycopy(prefix, 0, body, 0, prefix.length);
    System.arraycopy(jsonAfterRequestId, 0, body, prefix.length, jsonAfterRequestId.length);
    long deadline = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    pending.put(requestId, new PendingPush(deadline, callback));
    if (!send(Payload.of(type, body))) {
      PendingPush failed = pending.remove(requestId);
      if (failed != null) {
        failed.callback.onFailed("send failed");
      }
      return false;
    }
    pushCounts.sent.increment();
    return true;
  }

  /** Sends a request whose answer nobody waits for (setup acknowledgement, reset). */
  boolean sendWithoutAnswer(NacosRequest request) {
    request.requestId = Long.toString(pushIds.incrementAndGet());
    return send(request);
  }

  private boolean send(NacosRequest request) {
    return send(codec.encode(request));
  }

  private boolean send(Payload payload) {
    try {
      synchronized (sendLock) {
        if (closed.get()) {
          return false;
        }
        stream.send(payload);
      }
      return true;
    } catch (RuntimeException e) {
      close("send failed: " + e.getMessage());
      return false;
    }
  }

  /** A message on the stream after setup: the client's answer to one of our pushes. */
  void onStreamMessage(Object message, long nowNanos) {
    touch(nowNanos);
    if (!(message instanceof NacosResponse response) || response.requestId == null) {
      return;
    }
    PendingPush push = pending.remove(response.requestId);
    if (push == null) {
      return; // answered after it expired: already reported as failed
    }
    if (response.resultCode == NacosResponse.SUCCESS) {
      pushCounts.acknowledged.increment();
      push.callback.onAcknowledged(response);
    } else {
      pushCounts.failed.increment();
      push.callback.onFailed("client answered " + response.errorCode + ": " + response.message);
    }
  }

  /** Fails the pushes whose deadline has passed. */
  void expirePushes(long nowNanos) {
    for (Iterator<Map.Entry<String, PendingPush>> it = pending.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<String, PendingPush> entry = it.next();
      if (nowNanos - entry.getValue().deadlineNanos >= 0
          && pending.remove(entry.getKey()) != null) {
        pushCounts.failed.increment();
        entry.getValue().callback.onFailed("no answer in time");
      }
    }
  }

  /** Whether this client was asked to reconnect elsewhere ({@link #reset}) and is still here. */
  public boolean resetRequested() {
    return resetRequested;
  }

  /**
   * Asks the client to reconnect, optionally to another server; the client closes this one. False
   * when nothing was sent: the connection is closed (its client reconnects by itself) or closed
   * because the send failed.
   */
  public boolean reset(String serverIp, String serverPort) {
    resetRequested = true;
    ConnectResetRequest reset = new ConnectResetRequest();
    reset.serverIp = serverIp;
    reset.serverPort = serverPort;
    reset.connectionId = id;
    return sendWithoutAnswer(reset);
  }

  /**
   * Ends the stream, which makes the client reconnect; pending pushes fail. Idempotent. The closed
   * flag is set before the stream ends and the registry forgets the connection only after, so a
   * client that saw its stream end finds the connection closed: {@link NacosCalls} answers its
   * later unary calls on the same transport with "unregistered".
   */
  public void close(String reason) {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    log.debug("closing connection {}: {}", id, reason);
    try {
      synchronized (sendLock) {
        stream.close(Status.Code.UNAVAILABLE, reason);
      }
    } catch (RuntimeException alreadyClosed) {
      // The call was already closed by the client or the transport.
    }
    for (String requestId : pending.keySet()) {
      PendingPush push = pending.remove(requestId);
      if (push != null) {
        pushCounts.failed.increment();
        push.callback.onFailed("connection closed: " + reason);
      }
    }
    onClose.run();
  }

  @Override
  public String toString() {
    return "Connection{" + id + ", " + client.module() + ", " + client.clientVersion() + '}';
  }

  private record PendingPush(long deadlineNanos, PushCallback callback) {}
}
