package io.sluice.bench.naming;

import com.alibaba.nacos.api.naming.pojo.Instance;
import com.alibaba.nacos.api.naming.remote.request.InstanceRequest;
import com.alibaba.nacos.api.naming.remote.request.ServiceQueryRequest;
import com.alibaba.nacos.api.remote.request.Request;
import com.alibaba.nacos.common.remote.client.grpc.GrpcUtils;
import io.sluice.server.naming.grpc.NamingBodyDecoders;
import io.sluice.server.naming.grpc.NamingMessages;
import io.sluice.server.protocol.grpc.MessageCodec;
import io.sluice.server.protocol.grpc.Payload;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What reading a hot naming request's JSON body costs the server, by databind alone (before issue
 * 16's step 3) and as served now (the streaming {@code BodyDecoder}, databind only for unusual
 * shapes): the body of a registration with 100 bytes of metadata and of a service query, exactly as
 * the official nacos-client 2.3.2 writes them.
 *
 * <p>{@code java -jar sluice-bench/target/benchmarks.jar 'io.sluice.bench.naming' -prof gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class RequestDecodeBenchmark {
  private final MessageCodec databind = new MessageCodec();
  private final MessageCodec asServed = new MessageCodec();
  private final Payload registration;
  private final Payload query;

  public RequestDecodeBenchmark() {
    databind.register(NamingMessages.InstanceRequest.class);
    databind.register(NamingMessages.ServiceQueryRequest.class);
    asServed.register(NamingMessages.InstanceRequest.class, NamingBodyDecoders::instance);
    asServed.register(NamingMessages.ServiceQueryRequest.class, NamingBodyDecoders::query);
    Instance instance = new Instance();
    instance.setIp("10.1.0.7");
    instance.setPort(8080);
    instance.setMetadata(Map.of("k", "v".repeat(99)));
    registration =
        onTheWire(
            new InstanceRequest("public", "svc-17", "DEFAULT_GROUP", "registerInstance", instance));
    query = onTheWire(new ServiceQueryRequest("public", "svc-17", "DEFAULT_GROUP"));
  }

  private static Payload onTheWire(Request request) {
    request.setRequestId("1234");
    byte[] body = GrpcUtils.convert(request).getBody().getValue().toByteArray();
    return Payload.of(request.getClass().getSimpleName(), body);
  }

  @Benchmark
  public Object registrationByDatabind() throws IOException {
    return databind.decode(registration);
  }

  @Benchmark
  public Object registrationAsServed() throws IOException {
    return asServed.decode(registration);
  }

  @Benchmark
  public Object queryByDatabind() throws IOException {
    return databind.decode(query);
  }

  @Benchmark
  public Object queryAsServed() throws IOException {
    return asServed.decode(query);
  }
}
