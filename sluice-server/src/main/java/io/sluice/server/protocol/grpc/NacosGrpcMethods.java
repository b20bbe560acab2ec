package io.sluice.server.protocol.grpc;

import io.grpc.MethodDescriptor;

/**
 * The two gRPC methods of Nacos 2.x, for servers and clients alike. The proto has no package, so
 * the services are plainly {@code Request} and {@code BiRequestStream}.
 */
public final class NacosGrpcMethods {
  /** Every client request, one payload each way. */
  public static final MethodDescriptor<Payload, Payload> UNARY =
      MethodDescriptor.<Payload, Payload>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("Request/request")
          .setRequestMarshaller(PayloadMarshaller.INSTANCE)
          .setResponseMarshaller(PayloadMarshaller.INSTANCE)
          .build();

  /** The stream a client opens to register its connection and receive server pushes. */
  public static final MethodDescriptor<Payload, Payload> BI_STREAM =
      MethodDescriptor.<Payload, Payload>newBuilder()
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setFullMethodName("BiRequestStream/requestBiStream")
          .setRequestMarshaller(PayloadMarshaller.INSTANCE)
          .setResponseMarshaller(PayloadMarshaller.INSTANCE)
          .build();

  private NacosGrpcMethods() {}
}
