package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.server.protocol.grpc.GrpcTransport;
import io.sluice.server.protocol.grpc.IoTransport;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ServerOptionsTest {
  @Test
  void defaultsToNacosPortsOnLoopbackWithDataUnderTheWorkingDirectory() {
    ServerOptions options = ServerOptions.builder().build();

    assertThat(options.bindAddress()).isEqualTo("127.0.0.1");
    assertThat(options.httpPort()).isEqualTo(8848);
    assertThat(options.dataDir()).isEqualTo(Path.of("data"));
  }

  @Test
  void choosesTheIoTransportAutomaticallyUnlessNamed() {
    assertThat(ServerOptions.builder().build().ioTransport()).isEqualTo(IoTransport.AUTO);
    assertThat(ServerOptions.builder().ioTransport("nio").build().ioTransport())
        .isEqualTo(IoTransport.NIO);
    assertThat(ServerOptions.builder().ioTransport("epoll").build().toString())
        .contains("io=epoll");
    assertThatThrownBy(() -> ServerOptions.builder().ioTransport("select"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("one of: auto, epoll, nio");
  }

  @Test
  void servesTheGrpcPortWithNettyH2UnlessGrpcJavaIsNamed() {
    assertThat(ServerOptions.builder().build().grpcTransport()).isEqualTo(GrpcTransport.NETTY_H2);
    assertThat(ServerOptions.builder().grpcTransport("grpc-java").build().grpcTransport())
        .isEqualTo(GrpcTransport.GRPC_JAVA);
    assertThat(ServerOptions.builder().build().toString()).contains("grpcTransport=netty-h2");
  }

  @Test
  void rejectsAPortWhoseGrpcPortWouldNotExist() {
    assertThatThrownBy(() -> ServerOptions.builder().httpPort(64536))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("between 0 and 64535");
    assertThatThrownBy(() -> ServerOptions.builder().httpPort(-1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void boundsHandshakingGrpcSocketsPerAddressNeverAboveTheTotal() {
    ServerOptions defaults = ServerOptions.builder().build();
    assertThat(defaults.maxGrpcHandshakes()).isEqualTo(2_048);
    assertThat(defaults.maxGrpcHandshakesPerAddress()).isEqualTo(256);

    ServerOptions small = ServerOptions.builder().maxGrpcHandshakes(100).build();
    assertThat(small.maxGrpcHandshakesPerAddress()).isEqualTo(100);
    assertThatThrownBy(() -> ServerOptions.builder().maxGrpcHandshakesPerAddress(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("per address");
  }

  @Test
  void rejectsABlankBindAddress() {
    assertThatThrownBy(() -> ServerOptions.builder().bindAddress(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bind address");
  }

  @Test
  void authIsOffOnLoopbackOnByChoiceAndAlwaysOnBeyondLoopbackUnlessTurnedOffExplicitly() {
    assertThat(ServerOptions.builder().build().authEnabled()).isFalse();
    assertThat(ServerOptions.builder().bindAddress("localhost").build().authEnabled()).isFalse();
    assertThat(ServerOptions.builder().authMode(ServerOptions.AuthMode.ON).build().authEnabled())
        .isTrue();
    assertThat(ServerOptions.builder().bindAddress("0.0.0.0").build().authEnabled()).isTrue();
    assertThat(
            ServerOptions.builder()
                .bindAddress("0.0.0.0")
                .authMode(ServerOptions.AuthMode.OFF)
                .build()
                .authEnabled())
        .isFalse();
  }

  @Test
  void rejectsAShortAdminPassword() {
    assertThatThrownBy(() -> ServerOptions.builder().initialAdminPassword("short"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 8");
  }
}
