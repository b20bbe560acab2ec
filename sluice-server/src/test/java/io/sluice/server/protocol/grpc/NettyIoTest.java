package io.sluice.server.protocol.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

class NettyIoTest {
  private static final Throwable NOT_LOADED =
      new UnsatisfiedLinkError("could not load netty_transport_native_epoll_x86_64");

  @Test
  void autoRunsOnNativeEpollWhereItLoads() {
    NettyIo io = NettyIo.choose(IoTransport.AUTO, true, null);

    assertThat(io.transport()).isEqualTo(IoTransport.EPOLL);
    assertThat(io.describe()).isEqualTo("Netty's native epoll transport (--io auto)");
  }

  @Test
  void autoFallsBackToNioAndSaysWhyEpollDidNotLoad() {
    NettyIo io = NettyIo.choose(IoTransport.AUTO, false, NOT_LOADED);

    assertThat(io.transport()).isEqualTo(IoTransport.NIO);
    assertThat(io.describe())
        .isEqualTo(
            "Java NIO (--io auto: native epoll unavailable:"
                + " could not load netty_transport_native_epoll_x86_64)");
  }

  @Test
  void epollWhereItCannotLoadRefusesToStartWithNettysReason() {
    assertThatThrownBy(() -> NettyIo.choose(IoTransport.EPOLL, false, NOT_LOADED))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "--io epoll: Netty's native epoll transport cannot be used here (could not load"
                + " netty_transport_native_epoll_x86_64); --io nio or --io auto run on Java NIO")
        .hasNoCause();
  }

  @Test
  void nioStaysOnNioWhereEpollLoads() {
    NettyIo io = NettyIo.choose(IoTransport.NIO, true, null);

    assertThat(io.transport()).isEqualTo(IoTransport.NIO);
    assertThat(io.describe()).isEqualTo("Java NIO (--io nio)");
  }

  @Test
  void autoChoosesNativeEpollOnLinuxX86() {
    assumeTrue(GrpcServerIoTest.LINUX_X86_64, "Netty's epoll library is shipped for Linux x86-64");

    assertThat(NettyIo.choose(IoTransport.AUTO).transport()).isEqualTo(IoTransport.EPOLL);
    assertThat(NettyIo.choose(IoTransport.EPOLL).transport()).isEqualTo(IoTransport.EPOLL);
  }

  @Test
  void parsesTheOptionValuesAndNamesTheChoicesOfAnUnknownOne() {
    assertThat(IoTransport.parse("auto")).isEqualTo(IoTransport.AUTO);
    assertThat(IoTransport.parse("epoll")).isEqualTo(IoTransport.EPOLL);
    assertThat(IoTransport.parse("nio")).isEqualTo(IoTransport.NIO);
    assertThatThrownBy(() -> IoTransport.parse("kqueue"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown I/O transport 'kqueue' for --io; one of: auto, epoll, nio");
  }
}
