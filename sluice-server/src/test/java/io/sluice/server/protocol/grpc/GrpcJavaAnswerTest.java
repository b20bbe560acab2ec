package io.sluice.server.protocol.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Status;
import io.sluice.server.protocol.ClientFaultLog;
import io.sluice.server.testing.ManualClock;
import io.sluice.server.testing.NacosWireClient;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Answers on the grpc-java transport, through a real loopback port and a grpc-java client. */
class GrpcJavaAnswerTest {
  private final ManualClock clock = new ManualClock();
  private GrpcServer server;

  @BeforeEach
  void start() {
    MessageCodec codec = new MessageCodec();
    ClientFaultLog faults = new ClientFaultLog(clock, Runnable::run);
    server =
        GrpcServer.start(
            GrpcTransport.GRPC_JAVA,
            NettyIo.choose(IoTransport.AUTO),
            "127.0.0.1",
            0,
            1,
            1 << 20,
            10_000,
            10,
            10,
            faults,
            null,
            null,
            new ConnectionRegistry(clock, codec, 10, 10),
            NacosH2HandlerTest.testRouter(codec, clock),
            codec,
            () -> true,
            clock);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  /**
   * An answer whose encoding throws is a bug of ours: the call fails with INTERNAL at once instead
   * of never being answered (the encoding's exception used to be read as a cancelled call).
   */
  @Test
  void failsACallWhoseAnswerCannotBeEncodedWithInternalAndServesTheNext() throws Exception {
    try (NacosWireClient client = NacosWireClient.connect("127.0.0.1", server.port(), "test")) {
      CompletableFuture<JsonNode> broken = client.request("BrokenAnswerRequest", "{}");
      assertThatThrownBy(() -> broken.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .satisfies(
              e ->
                  assertThat(Status.fromThrowable(e.getCause()).getCode())
                      .isEqualTo(Status.Code.INTERNAL));
      JsonNode next =
          client.request("LongAnswerRequest", "{\"bytes\":10}").get(10, TimeUnit.SECONDS);
      assertThat(next.get("text").asText()).isEqualTo("x".repeat(10));
    }
  }
}
