package io.sluice.server.protocol.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.channel.ChannelOption;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.sluice.server.protocol.ClientFaultLog;
import io.sluice.server.testing.ManualClock;
import io.sluice.server.testing.NacosWireClient;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The gRPC port, on both {@link GrpcTransport}s, runs on native epoll under {@code --io auto} on
 * Linux and on NIO when asked, through a real loopback port: the listening socket is of that kind,
 * a client's calls are answered, and the handshake gate counts the transport in and out.
 */
class GrpcServerIoTest {
  static final boolean LINUX_X86_64 =
      System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")
          && (System.getProperty("os.arch", "").equals("amd64")
              || System.getProperty("os.arch", "").equals("x86_64"));

  private final ManualClock clock = new ManualClock();

  @ParameterizedTest
  @EnumSource(GrpcTransport.class)
  void autoServesThePortOnNativeEpollOnLinux(GrpcTransport transport) throws Exception {
    assumeTrue(LINUX_X86_64, "Netty's epoll library is shipped for Linux x86-64");
    try (GrpcServer server = start(transport, IoTransport.AUTO)) {
      assertThat(server.io().transport()).isEqualTo(IoTransport.EPOLL);
      assertThat(server.listeningChannel()).isInstanceOf(EpollServerSocketChannel.class);
      assertServesAndCounts(server);
    }
  }

  @ParameterizedTest
  @EnumSource(GrpcTransport.class)
  void nioServesThePortOnNioWhereEpollLoads(GrpcTransport transport) throws Exception {
    try (GrpcServer server = start(transport, IoTransport.NIO)) {
      assertThat(server.io().transport()).isEqualTo(IoTransport.NIO);
      assertThat(server.listeningChannel()).isInstanceOf(NioServerSocketChannel.class);
      assertServesAndCounts(server);
    }
  }

  @ParameterizedTest
  @EnumSource(GrpcTransport.class)
  void listensWithTheSameSocketOptionsOnEpollAsOnNio(GrpcTransport transport) {
    assumeTrue(LINUX_X86_64, "Netty's epoll library is shipped for Linux x86-64");
    try (GrpcServer epoll = start(transport, IoTransport.EPOLL);
        GrpcServer nio = start(transport, IoTransport.NIO)) {
      ServerChannel onEpoll = epoll.listeningChannel();
      ServerChannel onNio = nio.listeningChannel();
      // Not the buffer sizes: the kernel's defaults on both, but the JDK reports half of what
      // Linux's getsockopt says (it undoes the kernel's doubling) and Netty's epoll does not.
      for (ChannelOption<?> option :
          new ChannelOption<?>[] {ChannelOption.SO_BACKLOG, ChannelOption.SO_REUSEADDR}) {
        assertThat(onEpoll.config().getOption(option))
            .as(option.name())
            .isEqualTo(onNio.config().getOption(option));
      }
    }
  }

  private static void assertServesAndCounts(GrpcServer server) throws Exception {
    try (NacosWireClient client = NacosWireClient.connect("127.0.0.1", server.port(), "test")) {
      JsonNode answer =
          client.request("LongAnswerRequest", "{\"bytes\":10}").get(10, TimeUnit.SECONDS);
      assertThat(answer.get("text").asText()).isEqualTo("x".repeat(10));
      assertThat(server.transports()).isEqualTo(1);
      assertThat(server.handshakingSockets()).isZero();
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> server.transports() == 0);
  }

  private GrpcServer start(GrpcTransport transport, IoTransport io) {
    MessageCodec codec = new MessageCodec();
    return GrpcServer.start(
        transport,
        NettyIo.choose(io),
        "127.0.0.1",
        0,
        1,
        1 << 20,
        10_000,
        10,
        10,
        new ClientFaultLog(clock, Runnable::run),
        null,
        null,
        new ConnectionRegistry(clock, codec, 10, 10),
        NacosH2HandlerTest.testRouter(codec, clock),
        codec,
        () -> true,
        clock);
  }
}
