package io.sluice.server.testing;

import io.sluice.server.ServerOptions;
import io.sluice.server.protocol.grpc.GrpcTransport;
import io.sluice.server.protocol.grpc.IoTransport;
import java.util.List;

/**
 * The gRPC transport the server's gRPC suites run against: the server's default ({@link
 * ServerOptions#DEFAULT_GRPC_TRANSPORT}, netty-h2) unless the system property {@value #PROPERTY}
 * names another ({@code -Dsluice.it.grpcTransport=grpc-java}). The Failsafe execution {@code
 * grpc-java} of this module sets it for a slice of the suites; any suite can be run against either
 * by hand. Servers started as processes ({@link ServerProcess}, so every cluster node of {@link
 * ClusterProcesses}) follow it too. Likewise the I/O transport under it: {@code auto} (native epoll
 * on Linux) unless {@value #IO_PROPERTY} names another ({@code -Dsluice.it.io=nio}).
 */
public final class GrpcTransportUnderTest {
  public static final String PROPERTY = "sluice.it.grpcTransport";

  /** The {@code sluice server} option that chooses the transport. */
  public static final String OPTION = "--grpc-transport";

  public static final String IO_PROPERTY = "sluice.it.io";

  private GrpcTransportUnderTest() {}

  public static GrpcTransport get() {
    String name = System.getProperty(PROPERTY, "");
    return name.isBlank() ? ServerOptions.DEFAULT_GRPC_TRANSPORT : GrpcTransport.parse(name.trim());
  }

  public static IoTransport io() {
    String name = System.getProperty(IO_PROPERTY, "");
    return name.isBlank() ? IoTransport.AUTO : IoTransport.parse(name.trim());
  }

  /** {@code sluice server} arguments choosing both, for servers started as processes. */
  public static List<String> serverArguments() {
    return List.of(OPTION, get().optionValue(), "--io", io().optionValue());
  }
}
