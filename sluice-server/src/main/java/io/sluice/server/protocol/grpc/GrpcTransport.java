package io.sluice.server.protocol.grpc;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Which HTTP/2 implementation serves the Nacos gRPC port. Both speak the same two methods to the
 * same {@link RequestRouter} and {@link ConnectionRegistry}; they differ only in how frames become
 * calls. Raft between peers always uses grpc-java (Ratis's own transport), whatever is chosen here.
 */
public enum GrpcTransport {
  /**
   * grpc-java's Netty server: the default of every release before netty-h2, kept as the alternative
   * ({@code --grpc-transport grpc-java}).
   */
  GRPC_JAVA("grpc-java"),
  /**
   * Netty's HTTP/2 codec with a handler that knows exactly Nacos's two methods ({@link
   * NacosH2Handler}): no grpc-java call machinery per request. The default.
   */
  NETTY_H2("netty-h2");

  private final String optionValue;

  GrpcTransport(String optionValue) {
    this.optionValue = optionValue;
  }

  /** The name used by {@code --grpc-transport}. */
  public String optionValue() {
    return optionValue;
  }

  /** The transport named {@code value} as {@code --grpc-transport} spells it. */
  public static GrpcTransport parse(String value) {
    for (GrpcTransport transport : values()) {
      if (transport.optionValue.equals(value)) {
        return transport;
      }
    }
    throw new IllegalArgumentException(
        "unknown gRPC transport '"
            + value
            + "'; one of: "
            + Arrays.stream(values()).map(t -> t.optionValue).collect(Collectors.joining(", ")));
  }

  @Override
  public String toString() {
    return optionValue;
  }
}
