package io.sluice.server.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.testing.FreePorts;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bytes that are not a Nacos {@code Payload} get a reason, and the server serves on. */
class MalformedGrpcInputIT {
  private static final MethodDescriptor.Marshaller<byte[]> RAW =
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
            throw new UncheckedIOException(e);
          }
        }
      };

  private static final MethodDescriptor<byte[], byte[]> REQUEST =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("Request/request")
          .setRequestMarshaller(RAW)
          .setResponseMarshaller(RAW)
          .build();

  @Test
  void aMalformedProtobufIsRefusedWithItsReason(@TempDir Path dataDir) {
    try (SluiceServer server =
        SluiceServer.start(
            ServerOptions.builder()
                .httpPort(FreePorts.httpPortWithFreeGrpcPort())
                .dataDir(dataDir)
                .build())) {
      assertThat(server.awaitReady(30, TimeUnit.SECONDS)).isTrue();
      ManagedChannel channel =
          ManagedChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext().build();
      try {
        for (byte[] garbage :
            new byte[][] {{(byte) 0xff, (byte) 0xff, (byte) 0xff}, {0x0a, 0x7f}, {0x12, 0x05, 1}}) {
          assertThatThrownBy(
                  () ->
                      ClientCalls.blockingUnaryCall(
                          channel,
                          REQUEST,
                          CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
                          garbage))
              .isInstanceOfSatisfying(
                  StatusRuntimeException.class,
                  e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.getStatus().getDescription()).startsWith("malformed Payload");
                  });
        }
        assertThat(server.isReady()).isTrue();
      } finally {
        channel.shutdownNow();
      }
    }
  }
}
