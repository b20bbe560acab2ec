package io.sluice.server.protocol.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class GrpcStatusMessagesTest {
  @Test
  void leavesPrintableAsciiAsItIs() {
    String plain = "gRPC message exceeds maximum size 67584: 67585";
    assertThat(GrpcStatusMessages.percentEncode(plain)).isSameAs(plain);
  }

  @Test
  void escapesPercentControlCharactersAndUtf8BytesAsGrpcRequires() {
    assertThat(GrpcStatusMessages.percentEncode("100% sure\nné"))
        .isEqualTo("100%25 sure%0An%C3%A9");
  }

  @Test
  void namesBothTransportsAndRefusesAnUnknownOneWithTheChoices() {
    assertThat(GrpcTransport.parse("grpc-java")).isEqualTo(GrpcTransport.GRPC_JAVA);
    assertThat(GrpcTransport.parse("netty-h2")).isEqualTo(GrpcTransport.NETTY_H2);
    assertThatThrownBy(() -> GrpcTransport.parse("okhttp"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("okhttp")
        .hasMessageContaining("grpc-java, netty-h2");
  }
}
