package io.sluice.server.protocol.grpc;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Which of Netty's I/O transports carries the gRPC port's sockets, as {@code --io} asks for it; the
 * transport actually used is {@link NettyIo}'s. Either serves the same {@link GrpcTransport} with
 * the same channel options and limits; native epoll makes fewer system calls per request.
 */
public enum IoTransport {
  /** Native epoll where Netty can load it (Linux on x86-64), Java NIO elsewhere: the default. */
  AUTO("auto"),
  /** Netty's native epoll transport; the server refuses to start where it cannot be loaded. */
  EPOLL("epoll"),
  /** Java NIO's selector, on every platform. */
  NIO("nio");

  private final String optionValue;

  IoTransport(String optionValue) {
    this.optionValue = optionValue;
  }

  /** The name used by {@code --io}. */
  public String optionValue() {
    return optionValue;
  }

  /** The transport named {@code value} as {@code --io} spells it. */
  public static IoTransport parse(String value) {
    for (IoTransport transport : values()) {
      if (transport.optionValue.equals(value)) {
        return transport;
      }
    }
    throw new IllegalArgumentException(
        "unknown I/O transport '"
            + value
            + "' for --io; one of: "
            + Arrays.stream(values()).map(t -> t.optionValue).collect(Collectors.joining(", ")));
  }

  @Override
  public String toString() {
    return optionValue;
  }
}
