package io.sluice.server.testing;

import io.sluice.server.protocol.grpc.GrpcTransport;
import java.util.List;

/**
 * The gRPC transport the server's gRPC suites run against: grpc-java unless the system property
 * {@value #PROPERTY} names another ({@code -Dsluice.it.grpcTransport=netty-h2}). The Failsafe
 * execution {@code netty-h2} of this module sets it for a slice of the suites; any suite can be run
 * against either by hand. Servers started as processes ({@link ServerProcess}, so every cluster
 * node of {@link ClusterProcesses}) follow it too.
 */
public final class GrpcTransportUnderTest {
  public static final String PROPERTY = "sluice.it.grpcTransport";

  /** The {@code sluice server} option that chooses the transport. */
  public static final String OPTION = "--grpc-transport";

  private GrpcTransportUnderTest() {}

  public static GrpcTransport get() {
    String name = System.getProperty(PROPERTY, "");
    return name.isBlank() ? GrpcTransport.GRPC_JAVA : GrpcTransport.parse(name.trim());
  }

  /** {@code sluice server} arguments choosing it, for servers started as processes. */
  public static List<String> serverArguments() {
    return List.of(OPTION, get().optionValue());
  }
}
