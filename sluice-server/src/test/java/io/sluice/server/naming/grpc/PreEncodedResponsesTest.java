package io.sluice.server.naming.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.alibaba.nacos.api.grpc.auto.Payload;
import com.alibaba.nacos.api.naming.remote.response.InstanceResponse;
import com.alibaba.nacos.api.naming.remote.response.QueryServiceResponse;
import com.alibaba.nacos.api.naming.remote.response.SubscribeServiceResponse;
import com.alibaba.nacos.common.remote.PayloadRegistry;
import com.alibaba.nacos.common.remote.client.grpc.GrpcUtils;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.sluice.server.naming.ServiceInfoJson;
import io.sluice.server.protocol.grpc.ErrorCodes;
import io.sluice.server.protocol.grpc.MessageCodec;
import io.sluice.server.protocol.grpc.NacosResponse;
import io.sluice.server.protocol.grpc.PayloadMarshaller;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The responses spliced from cached bytes, read back by the official client's own parser: what a
 * Nacos client receives must not depend on whether Jackson or the splice wrote it.
 */
class PreEncodedResponsesTest {
  private static final String SERVICE_INFO =
      "{\"name\":\"orders\",\"groupName\":\"G\",\"clusters\":\"\",\"cacheMillis\":10000,"
          + "\"hosts\":[{\"instanceId\":\"10.0.0.1#80#DEFAULT#G@@orders\",\"ip\":\"10.0.0.1\","
          + "\"port\":80,\"weight\":1.0,\"healthy\":true,\"enabled\":true,\"ephemeral\":true,"
          + "\"clusterName\":\"DEFAULT\",\"serviceName\":\"G@@orders\","
          + "\"metadata\":{\"zone\":\"\u00e9st\"}}],\"lastRefTime\":7,\"checksum\":\"\","
          + "\"allIPs\":false,\"reachProtectionThreshold\":false,\"valid\":true}";

  private final MessageCodec codec = new MessageCodec();

  /** Direct buffers, as the netty-h2 transport's pooled allocator gives. */
  private static final UnpooledByteBufAllocator DIRECT = new UnpooledByteBufAllocator(true);

  /** A rendering as a service view keeps it. */
  private static ServiceInfoJson kept(String json) {
    return new ServiceInfoJson(json.getBytes(StandardCharsets.UTF_8), true);
  }

  /** A service's list of {@code hosts} instances, each with 100 bytes of metadata. */
  private static String serviceInfo(int hosts) {
    StringBuilder json =
        new StringBuilder("{\"name\":\"orders\",\"groupName\":\"G\",\"clusters\":\"\",\"hosts\":[");
    for (int i = 0; i < hosts; i++) {
      json.append(i == 0 ? "" : ",")
          .append("{\"instanceId\":\"10.0.0.")
          .append(i)
          .append("#80#DEFAULT#G@@orders\",\"ip\":\"10.0.0.")
          .append(i)
          .append("\",\"port\":80,\"healthy\":true,\"metadata\":{\"m\":\"")
          .append("\u00e9".repeat(50))
          .append("\"}}");
    }
    return json.append("],\"lastRefTime\":7,\"valid\":true}").toString();
  }

  @BeforeAll
  static void registerTheClientsTypes() {
    PayloadRegistry.init();
  }

  /**
   * Encodes like the server does on the wire: codec, then the marshaller's stream, drained
   * (grpc-java); and checks that the netty-h2 transport's gRPC message, written straight into one
   * buffer, is the same bytes behind its 5-byte prefix.
   */
  private Object onTheWire(NacosResponse response) throws Exception {
    InputStream stream = PayloadMarshaller.INSTANCE.stream(codec.encode(response));
    ByteArrayOutputStream wire = new ByteArrayOutputStream();
    int length = stream.available();
    int drained = ((io.grpc.Drainable) stream).drainTo(wire);
    assertThat(drained).isEqualTo(length).isEqualTo(wire.size());

    ByteBuf message = codec.encodeGrpcMessage(response, UnpooledByteBufAllocator.DEFAULT);
    try {
      assertThat(message.readByte()).isZero();
      assertThat(message.readInt()).isEqualTo(wire.size());
      assertThat(ByteBufUtil.getBytes(message)).isEqualTo(wire.toByteArray());
    } finally {
      message.release();
    }
    return GrpcUtils.parse(Payload.parseFrom(wire.toByteArray()));
  }

  @Test
  void aServiceQueryIsTheCachedListBetweenConstantPiecesAndTheClientReadsIt() throws Exception {
    NamingMessages.QueryServiceResponse response = new NamingMessages.QueryServiceResponse();
    response.serviceInfo = kept(SERVICE_INFO);
    response.requestId = "r\"1\\\u2028";

    QueryServiceResponse read = (QueryServiceResponse) onTheWire(response);

    assertThat(read.isSuccess()).isTrue();
    assertThat(read.getRequestId()).isEqualTo("r\"1\\\u2028");
    assertThat(read.getServiceInfo().getName()).isEqualTo("orders");
    assertThat(read.getServiceInfo().getLastRefTime()).isEqualTo(7);
    assertThat(read.getServiceInfo().getHosts()).hasSize(1);
    assertThat(read.getServiceInfo().getHosts().get(0).getMetadata())
        .containsEntry("zone", "\u00e9st");
  }

  @Test
  void aPlainRequestIdIsWrittenAsItIsAndAnEmptyListStillReads() throws Exception {
    NamingMessages.QueryServiceResponse response = new NamingMessages.QueryServiceResponse();
    response.serviceInfo =
        kept("{\"name\":\"s\",\"groupName\":\"G\",\"clusters\":\"\",\"hosts\":[]}");
    response.requestId = "1234567";

    QueryServiceResponse read = (QueryServiceResponse) onTheWire(response);

    assertThat(read.getRequestId()).isEqualTo("1234567");
    assertThat(read.getServiceInfo().getHosts()).isEmpty();
  }

  @Test
  void aSubscriptionAnswersTheSameWayAndAMissingRequestIdIsLeftOut() throws Exception {
    NamingMessages.SubscribeServiceResponse response =
        new NamingMessages.SubscribeServiceResponse();
    response.serviceInfo = kept(SERVICE_INFO);

    SubscribeServiceResponse read = (SubscribeServiceResponse) onTheWire(response);

    assertThat(read.isSuccess()).isTrue();
    assertThat(read.getRequestId()).isNull();
    assertThat(read.getServiceInfo().getHosts().get(0).getIp()).isEqualTo("10.0.0.1");
  }

  @Test
  void aLargeKeptListIsSentFromTheViewsDirectCopyAndReadsTheSame() throws Exception {
    ServiceInfoJson info = kept(serviceInfo(10));
    assertThat(info.utf8().length).isGreaterThanOrEqualTo(ServiceInfoJson.MIN_SHARED_BYTES);
    NamingMessages.QueryServiceResponse response = new NamingMessages.QueryServiceResponse();
    response.serviceInfo = info;
    response.requestId = "r\"1\\\u2028";

    QueryServiceResponse read = (QueryServiceResponse) onTheWire(response);

    assertThat(read.isSuccess()).isTrue();
    assertThat(read.getRequestId()).isEqualTo("r\"1\\\u2028");
    assertThat(read.getServiceInfo().getHosts()).hasSize(10);
    assertThat(read.getServiceInfo().getHosts().get(9).getMetadata().get("m"))
        .isEqualTo("\u00e9".repeat(50));
  }

  @Test
  void answersReferToTheCachedListInsteadOfCopyingItAndReleasingThemLeavesItIntact() {
    ServiceInfoJson info = kept(serviceInfo(10));
    ByteBuf shared = info.asLastMember();
    assertThat(shared.isDirect()).isTrue();
    assertThat(ByteBufUtil.getBytes(shared))
        .isEqualTo(
            (new String(info.utf8(), StandardCharsets.UTF_8) + "}")
                .getBytes(StandardCharsets.UTF_8));
    NamingMessages.QueryServiceResponse response = new NamingMessages.QueryServiceResponse();
    response.serviceInfo = info;
    response.requestId = "7";

    ByteBuf first = codec.encodeGrpcMessage(response, DIRECT);
    ByteBuf second = codec.encodeGrpcMessage(response, DIRECT);
    try {
      assertThat(first).isInstanceOf(CompositeByteBuf.class);
      assertThat(first.isDirect()).isTrue(); // so the socket takes it without a copy either
      int at = first.writerIndex() - shared.readableBytes(); // where the list starts
      assertThat(first.getByte(at)).isEqualTo((byte) '{');
      // The same memory, not a copy: a (test-only) write to the cache shows in both answers.
      shared.setByte(shared.readerIndex(), 'X');
      assertThat(first.getByte(at)).isEqualTo((byte) 'X');
      assertThat(second.getByte(at)).isEqualTo((byte) 'X');
      shared.setByte(shared.readerIndex(), '{');
    } finally {
      first.release();
      second.release();
    }
    // The answers' release neither freed nor consumed the cache's buffer: the next answer reads it.
    assertThat(first.refCnt()).isZero();
    assertThat(shared.refCnt()).isPositive();
    assertThat(info.asLastMember()).isSameAs(shared);
    assertThat(shared.readableBytes()).isEqualTo(info.utf8().length + 1);
    assertThat(ByteBufUtil.getBytes(shared, 0, info.utf8().length)).isEqualTo(info.utf8());
  }

  @Test
  void aSmallOrUnkeptListIsCopiedIntoOneBufferAsBefore() {
    for (ServiceInfoJson info :
        new ServiceInfoJson[] {
          kept(SERVICE_INFO),
          new ServiceInfoJson(serviceInfo(10).getBytes(StandardCharsets.UTF_8), false)
        }) {
      assertThat(info.asLastMember()).isNull();
      NamingMessages.QueryServiceResponse response = new NamingMessages.QueryServiceResponse();
      response.serviceInfo = info;
      ByteBuf message = codec.encodeGrpcMessage(response, UnpooledByteBufAllocator.DEFAULT);
      try {
        assertThat(message).isNotInstanceOf(CompositeByteBuf.class);
      } finally {
        message.release();
      }
    }
  }

  @Test
  void aRegistrationsAcknowledgementIsConstantButForItsRequestId() throws Exception {
    for (String type : new String[] {"registerInstance", "deregisterInstance"}) {
      NamingMessages.InstanceResponse response = new NamingMessages.InstanceResponse();
      response.type = type;
      response.requestId = "42";

      InstanceResponse read = (InstanceResponse) onTheWire(response);

      assertThat(read.isSuccess()).isTrue();
      assertThat(read.getType()).isEqualTo(type);
      assertThat(read.getRequestId()).isEqualTo("42");
      assertThat(read.getErrorCode()).isZero();
    }
  }

  @Test
  void aFailureIsStillWrittenInFullWithItsMessage() throws Exception {
    NamingMessages.QueryServiceResponse query = new NamingMessages.QueryServiceResponse();
    query.serviceInfo = kept(SERVICE_INFO);
    query.fail(ErrorCodes.INVALID_PARAM, "bad service name");
    NamingMessages.InstanceResponse register = new NamingMessages.InstanceResponse();
    register.type = "registerInstance";
    register.fail(ErrorCodes.INVALID_PARAM, "bad ip");

    QueryServiceResponse readQuery = (QueryServiceResponse) onTheWire(query);
    InstanceResponse readRegister = (InstanceResponse) onTheWire(register);

    assertThat(readQuery.isSuccess()).isFalse();
    assertThat(readQuery.getMessage()).isEqualTo("bad service name");
    assertThat(readQuery.getServiceInfo()).isNull();
    assertThat(readRegister.isSuccess()).isFalse();
    assertThat(readRegister.getErrorCode()).isEqualTo(ErrorCodes.INVALID_PARAM);
    assertThat(readRegister.getMessage()).isEqualTo("bad ip");
  }
}
