package io.sluice.bench.load.lean;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.sluice.server.protocol.grpc.Payload;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One client connection to a Nacos-compatible gRPC port, as the official client makes it: a
 * channel, a {@code ServerCheckRequest}, then the bidirectional stream that registers the
 * connection and carries the server's pushes. Requests go as unary calls; many may be in flight at
 * once (HTTP/2 multiplexing), which is how the lean driver lets one connection stand for many
 * logical clients.
 *
 * <p>Every request the server sends on the stream is answered at once with the matching response
 * type and {@code requestId}, then handed to the {@link PushHandler}.
 *
 * <p>Concurrency: {@link #call} is safe from any thread; writes on the stream are serialised by
 * {@code streamLock} because a gRPC stream observer is not thread-safe.
 */
public final class LeanConnection implements AutoCloseable {
  private static final String CLIENT_VERSION = "Nacos-Java-Client:v2.3.2";

  private final ManagedChannel channel;
  private final PushHandler pushes;
  private final long timeoutMillis;
  private final AtomicLong requestIds = new AtomicLong();
  private final CompletableFuture<LeanConnection> registered = new CompletableFuture<>();
  private final Object streamLock = new Object();
  private final AtomicLong pushesReceived = new AtomicLong();
  private StreamObserver<Payload> stream;
  private volatile String connectionId = "";
  private volatile boolean closed;
  private long requestsAtLastLook = -1; // the keep-alive thread's only

  private LeanConnection(ManagedChannel channel, PushHandler pushes, long timeoutMillis) {
    this.channel = channel;
    this.pushes = pushes;
    this.timeoutMillis = timeoutMillis;
  }

  static CompletableFuture<LeanConnection> open(
      ManagedChannel channel, Map<String, String> labels, PushHandler pushes, long timeoutMillis) {
    LeanConnection connection = new LeanConnection(channel, pushes, timeoutMillis);
    StringBuilder check = new StringBuilder("{\"headers\":{},\"requestId\":");
    Json.quote(check, connection.nextRequestId()).append(",\"module\":\"internal\"}");
    CompletableFuture<LeanConnection> opened =
        connection
            .callRaw("ServerCheckRequest", check.toString().getBytes(StandardCharsets.UTF_8))
            .thenCompose(
                response -> {
                  connection.connectionId = Json.stringField(response.body(), "connectionId");
                  boolean negotiates =
                      indexOf(response.body(), "\"supportAbilityNegotiation\":true") >= 0;
                  connection.openStream(labels);
                  if (!negotiates) {
                    // An older server sends no SetupAckRequest; the official client then waits
                    // 100 ms and goes ahead.
                    CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS)
                        .execute(() -> connection.registered.complete(connection));
                  }
                  return connection.registered;
                })
            .orTimeout(timeoutMillis, TimeUnit.MILLISECONDS);
    opened.whenComplete(
        (ok, failure) -> {
          if (failure != null) {
            connection.close();
          }
        });
    return opened;
  }

  /** The id the server gave this connection in its {@code ServerCheckResponse}. */
  public String connectionId() {
    return connectionId;
  }

  public String nextRequestId() {
    return Long.toString(requestIds.incrementAndGet());
  }

  /**
   * Sends a {@code HealthCheckRequest} if no request was sent since the previous look: every
   * request takes an id, so an unchanged counter means an idle connection, and the keep-alive's own
   * id is not counted as activity. Called by one thread only (the transport's keep-alive), so the
   * last value seen needs no synchronisation beyond that thread.
   */
  void keepAliveIfIdle() {
    if (requestIds.get() == requestsAtLastLook) {
      call("HealthCheckRequest", Requests.healthCheck(nextRequestId()))
          .exceptionally(failure -> null); // the next call on it reports what went wrong
    }
    requestsAtLastLook = requestIds.get();
  }

  public long pushesReceived() {
    return pushesReceived.get();
  }

  public boolean isClosed() {
    return closed;
  }

  /**
   * Sends one request and completes with the response, or exceptionally with {@link
   * NacosErrorException} when {@code resultCode} is not 200, or with the transport's error.
   */
  public CompletableFuture<Payload> call(String type, byte[] body) {
    return call(type, Map.of(), body);
  }

  public CompletableFuture<Payload> call(String type, Map<String, String> headers, byte[] body) {
    return callRaw(type, headers, body).thenApply(LeanConnection::requireSuccess);
  }

  private CompletableFuture<Payload> callRaw(String type, byte[] body) {
    return callRaw(type, Map.of(), body).thenApply(LeanConnection::requireSuccess);
  }

  private static Payload requireSuccess(Payload response) {
    int resultCode = Json.intField(response.body(), "resultCode", 200);
    if (resultCode != 200) {
      throw new NacosErrorException(
          response.type(),
          Json.intField(response.body(), "errorCode", 0),
          Json.stringField(response.body(), "message"));
    }
    return response;
  }

  private CompletableFuture<Payload> callRaw(
      String type, Map<String, String> headers, byte[] body) {
    CompletableFuture<Payload> response = new CompletableFuture<>();
    ClientCall<Payload, Payload> call =
        channel.newCall(
            LeanTransport.UNARY,
            CallOptions.DEFAULT.withDeadlineAfter(timeoutMillis, TimeUnit.MILLISECONDS));
    ClientCalls.asyncUnaryCall(
        call,
        new Payload(type, "", headers, body),
        new StreamObserver<>() {
          @Override
          public void onNext(Payload value) {
            response.complete(value);
          }

          @Override
          public void onError(Throwable t) {
            response.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {
            if (!response.isDone()) {
              response.completeExceptionally(new IllegalStateException("no response"));
            }
          }
        });
    return response;
  }

  private void openStream(Map<String, String> labels) {
    StringBuilder setup = new StringBuilder("{\"headers\":{},\"requestId\":");
    Json.quote(setup, nextRequestId()).append(",\"clientVersion\":");
    Json.quote(setup, CLIENT_VERSION).append(",\"tenant\":\"\",\"labels\":{");
    boolean first = true;
    for (Map.Entry<String, String> label : labels.entrySet()) {
      if (!first) {
        setup.append(',');
      }
      first = false;
      Json.quote(setup, label.getKey()).append(':');
      Json.quote(setup, label.getValue());
    }
    setup.append("},\"abilityTable\":{},\"module\":\"internal\"}");
    synchronized (streamLock) {
      stream =
          ClientCalls.asyncBidiStreamingCall(
              channel.newCall(LeanTransport.BI_STREAM, CallOptions.DEFAULT), new ServerRequests());
      stream.onNext(
          Payload.of("ConnectionSetupRequest", setup.toString().getBytes(StandardCharsets.UTF_8)));
    }
  }

  /** The server's requests on the stream. */
  private final class ServerRequests implements StreamObserver<Payload> {
    @Override
    public void onNext(Payload request) {
      long received = System.nanoTime();
      String type = request.type();
      answer(type, Json.stringField(request.body(), "requestId"));
      if (type.equals("SetupAckRequest")) {
        registered.complete(LeanConnection.this);
        return;
      }
      pushesReceived.incrementAndGet();
      pushes.onPush(LeanConnection.this, request, received);
    }

    @Override
    public void onError(Throwable t) {
      closed = true;
      registered.completeExceptionally(t);
    }

    @Override
    public void onCompleted() {
      closed = true;
      registered.completeExceptionally(new IllegalStateException("server closed the stream"));
    }
  }

  private void answer(String requestType, String requestId) {
    String responseType =
        requestType.endsWith("Request")
            ? requestType.substring(0, requestType.length() - "Request".length()) + "Response"
            : requestType + "Response";
    StringBuilder body = new StringBuilder("{\"resultCode\":200,\"errorCode\":0");
    if (requestId != null) {
      Json.quote(body.append(",\"requestId\":"), requestId);
    }
    body.append(",\"success\":true}");
    send(Payload.of(responseType, body.toString().getBytes(StandardCharsets.UTF_8)));
  }

  private void send(Payload payload) {
    synchronized (streamLock) {
      if (stream != null && !closed) {
        stream.onNext(payload);
      }
    }
  }

  private static int indexOf(byte[] haystack, String needle) {
    byte[] n = needle.getBytes(StandardCharsets.UTF_8);
    outer:
    for (int i = 0; i + n.length <= haystack.length; i++) {
      for (int k = 0; k < n.length; k++) {
        if (haystack[i + k] != n[k]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  /** Ends the stream and the channel; the server then drops what this connection owned. */
  @Override
  public void close() {
    synchronized (streamLock) {
      if (stream != null && !closed) {
        try {
          stream.onCompleted();
        } catch (RuntimeException ignored) {
          // already gone
        }
      }
      closed = true;
    }
    channel.shutdownNow();
  }
}
