package io.sluice.server.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.sluice.server.protocol.grpc.NacosGrpcMethods;
import io.sluice.server.protocol.grpc.Payload;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * A bare Nacos 2.x gRPC client for protocol tests and scale tests: it speaks the wire protocol
 * directly (handshake, unary requests, answering pushes) so a test controls every step, and many of
 * them fit in one JVM. Compatibility itself is proven with the official client elsewhere.
 */
public final class NacosWireClient implements AutoCloseable {
  public static final ObjectMapper JSON = new ObjectMapper();

  static final MethodDescriptor<Payload, Payload> UNARY = NacosGrpcMethods.UNARY;
  static final MethodDescriptor<Payload, Payload> BI_STREAM = NacosGrpcMethods.BI_STREAM;

  private final ManagedChannel channel;

  /** For every call: {@link CallOptions#DEFAULT}, or with a compression chosen. */
  private final CallOptions callOptions;

  private StreamObserver<Payload> stream;
  private final CompletableFuture<Void> setupAcknowledged = new CompletableFuture<>();
  private final CompletableFuture<Status> streamClosed = new CompletableFuture<>();
  private volatile BiConsumer<String, JsonNode> pushListener = (type, body) -> {};
  private volatile boolean answerPushes = true;
  private boolean closed; // guarded by this
  private final Map<String, Long> answerDelayMillis = new ConcurrentHashMap<>();

  private NacosWireClient(ManagedChannel channel, CallOptions callOptions) {
    this.channel = channel;
    this.callOptions = callOptions;
  }

  /**
   * {@code fullMethodName} as a unary method of raw bytes each way, for tests that send what no
   * client would (bytes that are not a payload, unknown methods, oversized messages).
   */
  public static MethodDescriptor<byte[], byte[]> rawUnary(String fullMethodName) {
    return MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(fullMethodName)
        .setRequestMarshaller(RAW_BYTES)
        .setResponseMarshaller(RAW_BYTES)
        .build();
  }

  private static final MethodDescriptor.Marshaller<byte[]> RAW_BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
        }
      };

  /** A channel that has not done the handshake: only the unary call is usable. */
  public static NacosWireClient unregistered(String host, int grpcPort) {
    return unregistered(host, grpcPort, CallOptions.DEFAULT);
  }

  private static NacosWireClient unregistered(String host, int grpcPort, CallOptions options) {
    return new NacosWireClient(
        NettyChannelBuilder.forAddress(host, grpcPort).usePlaintext().build(), options);
  }

  /** Connects, checks the server, opens the stream and waits for the setup acknowledgement. */
  public static NacosWireClient connect(String host, int grpcPort, String module) throws Exception {
    return connect(host, grpcPort, module, CallOptions.DEFAULT);
  }

  /**
   * As {@link #connect(String, int, String)}, every call (the stream included) made with {@code
   * options}, e.g. {@code CallOptions.DEFAULT.withCompression("gzip")}: grpc-java then compresses
   * each message it sends.
   */
  public static NacosWireClient connect(
      String host, int grpcPort, String module, CallOptions options) throws Exception {
    NacosWireClient client = unregistered(host, grpcPort, options);
    JsonNode check = client.request("ServerCheckRequest", "{}").get(10, TimeUnit.SECONDS);
    if (check.path("resultCode").asInt() != 200) {
      client.close();
      throw new IllegalStateException("server check failed: " + check);
    }
    client.openStream(module);
    client.setupAcknowledged.get(10, TimeUnit.SECONDS);
    return client;
  }

  private void openStream(String module) {
    stream =
        ClientCalls.asyncBidiStreamingCall(
            channel.newCall(BI_STREAM, callOptions),
            new StreamObserver<>() {
              @Override
              public void onNext(Payload payload) {
                onServerRequest(payload);
              }

              @Override
              public void onError(Throwable t) {
                streamClosed.complete(Status.fromThrowable(t));
              }

              @Override
              public void onCompleted() {
                streamClosed.complete(Status.OK);
              }
            });
    String setup =
        "{\"clientVersion\":\"Nacos-Java-Client:v2.3.2\",\"tenant\":\"\",\"labels\":{\"module\":\""
            + module
            + "\",\"source\":\"sdk\"},\"abilityTable\":{},\"module\":\"internal\",\"headers\":{}}";
    synchronized (this) {
      stream.onNext(
          new Payload(
              "ConnectionSetupRequest",
              "127.0.0.1",
              Map.of(),
              setup.getBytes(StandardCharsets.UTF_8)));
    }
  }

  private void onServerRequest(Payload payload) {
    JsonNode body;
    try {
      body = JSON.readTree(payload.body());
    } catch (IOException e) {
      return;
    }
    if (payload.type().equals("SetupAckRequest")) {
      setupAcknowledged.complete(null);
      return;
    }
    pushListener.accept(payload.type(), body);
    if (answerPushes) {
      String responseType = payload.type().replace("Request", "Response");
      ObjectNode answer = JSON.createObjectNode();
      answer.put("resultCode", 200);
      answer.put("errorCode", 0);
      answer.put("requestId", body.path("requestId").asText());
      long delay = answerDelayMillis.getOrDefault(payload.type(), 0L);
      if (delay > 0) {
        CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS)
            .execute(() -> send(responseType, answer.toString()));
      } else {
        send(responseType, answer.toString());
      }
    }
  }

  private void send(String type, String json) {
    synchronized (this) {
      if (!closed && !streamClosed.isDone()) {
        stream.onNext(Payload.of(type, json.getBytes(StandardCharsets.UTF_8)));
      }
    }
  }

  /** Called with the type and body of every request the server pushes. */
  public void onPush(BiConsumer<String, JsonNode> listener) {
    this.pushListener = listener;
  }

  /** Stop (or resume) answering pushes, as a stuck client would. */
  public void answerPushes(boolean answer) {
    this.answerPushes = answer;
  }

  /**
   * Answers pushes of this type ({@code NotifySubscriberRequest}, ...) only after {@code millis},
   * as a busy client or a busy network would; 0 answers at once again.
   */
  public void delayAnswers(String pushType, long millis) {
    answerDelayMillis.put(pushType, millis);
  }

  /** Completes when the server ends the stream (with the status it gave). */
  public CompletableFuture<Status> streamClosed() {
    return streamClosed;
  }

  /** One unary request; completes with the JSON body of the response. */
  public CompletableFuture<JsonNode> request(String type, String json) {
    CompletableFuture<JsonNode> result = new CompletableFuture<>();
    ClientCall<Payload, Payload> call = channel.newCall(UNARY, callOptions);
    ClientCalls.asyncUnaryCall(
        call,
        Payload.of(type, json.getBytes(StandardCharsets.UTF_8)),
        new StreamObserver<>() {
          @Override
          public void onNext(Payload response) {
            try {
              ObjectNode node = (ObjectNode) JSON.readTree(response.body());
              node.put("@type", response.type());
              result.complete(node);
            } catch (IOException e) {
              result.completeExceptionally(e);
            }
          }

          @Override
          public void onError(Throwable t) {
            result.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {
            result.completeExceptionally(new IllegalStateException("no response"));
          }
        });
    return result;
  }

  @Override
  public void close() {
    if (stream != null) {
      try {
        synchronized (this) {
          closed = true;
          stream.onCompleted();
        }
      } catch (RuntimeException alreadyClosed) {
        // fine
      }
    }
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
