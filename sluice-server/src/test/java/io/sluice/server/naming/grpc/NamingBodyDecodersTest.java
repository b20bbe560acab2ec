package io.sluice.server.naming.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alibaba.nacos.api.naming.pojo.Instance;
import com.alibaba.nacos.api.remote.request.Request;
import com.alibaba.nacos.common.remote.client.grpc.GrpcUtils;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import io.sluice.server.naming.grpc.NamingMessages.BatchInstanceRequest;
import io.sluice.server.naming.grpc.NamingMessages.InstanceRequest;
import io.sluice.server.naming.grpc.NamingMessages.PersistentInstanceRequest;
import io.sluice.server.naming.grpc.NamingMessages.ServiceQueryRequest;
import io.sluice.server.naming.grpc.NamingMessages.SubscribeServiceRequest;
import io.sluice.server.protocol.grpc.BodyDecoder;
import io.sluice.server.protocol.grpc.MessageCodec;
import io.sluice.server.protocol.grpc.NacosRequest;
import io.sluice.server.protocol.grpc.Payload;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The streaming decoders of the hot naming requests: what the official nacos-client 2.3.2 sends is
 * read on the streaming path, field for field as databind reads it; anything unusual is declined
 * and read by databind, so the server accepts and refuses exactly what it did before, with the same
 * messages.
 */
class NamingBodyDecodersTest {
  private static final JsonFactory JSON = new JsonFactory();

  private final MessageCodec databind = new MessageCodec();
  private final MessageCodec asServed = new MessageCodec();

  NamingBodyDecodersTest() {
    databind.register(InstanceRequest.class);
    databind.register(PersistentInstanceRequest.class);
    databind.register(BatchInstanceRequest.class);
    databind.register(ServiceQueryRequest.class);
    databind.register(SubscribeServiceRequest.class);
    asServed.register(InstanceRequest.class, NamingBodyDecoders::instance);
    asServed.register(PersistentInstanceRequest.class, NamingBodyDecoders::persistent);
    asServed.register(BatchInstanceRequest.class, NamingBodyDecoders::batch);
    asServed.register(ServiceQueryRequest.class, NamingBodyDecoders::query);
    asServed.register(SubscribeServiceRequest.class, NamingBodyDecoders::subscribe);
  }

  private static Instance officialInstance(int port) {
    Instance instance = new Instance();
    instance.setIp("10.0.0.1");
    instance.setPort(port);
    instance.setWeight(2.5);
    instance.setClusterName("east");
    instance.setHealthy(false);
    Map<String, String> metadata = new HashMap<>();
    metadata.put("version", "1.0");
    metadata.put("zone", "\u00e9st");
    metadata.put("preserved.heart.beat.interval", "3000");
    instance.setMetadata(metadata);
    return instance;
  }

  /** The JSON body exactly as the official client puts it on the wire. */
  private static byte[] onTheWire(Request request) {
    request.setRequestId("42");
    request.putHeader("app", "orders-app");
    return GrpcUtils.convert(request).getBody().getValue().toByteArray();
  }

  private static <R extends NacosRequest> R streamed(BodyDecoder<R> decoder, byte[] body)
      throws IOException {
    try (JsonParser json = JSON.createParser(body)) {
      return decoder.decode(json);
    }
  }

  private static byte[] utf8(String json) {
    return json.getBytes(StandardCharsets.UTF_8);
  }

  /** Either codec's reading: the request as JSON with every field, or the refusal's message. */
  private Object reading(MessageCodec codec, String type, byte[] body) {
    try {
      return codec.mapper().valueToTree(codec.decode(Payload.of(type, body)));
    } catch (IOException refused) {
      return "refused: " + refused.getMessage();
    }
  }

  private void readsTheSameAsDatabind(String type, byte[] body) {
    assertThat(reading(asServed, type, body)).isEqualTo(reading(databind, type, body));
  }

  @Test
  void readsTheOfficialClientsRegistrationOnTheStreamingPathAsDatabindReadsIt() throws Exception {
    byte[] body =
        onTheWire(
            new com.alibaba.nacos.api.naming.remote.request.InstanceRequest(
                "dev", "orders", "G", "registerInstance", officialInstance(8080)));

    InstanceRequest request = streamed(NamingBodyDecoders::instance, body);

    assertThat(request.requestId).isEqualTo("42");
    assertThat(request.namespace).isEqualTo("dev");
    assertThat(request.groupName).isEqualTo("G");
    assertThat(request.serviceName).isEqualTo("orders");
    assertThat(request.type).isEqualTo("registerInstance");
    assertThat(request.instance.ip).isEqualTo("10.0.0.1");
    assertThat(request.instance.port).isEqualTo(8080);
    assertThat(request.instance.weight).isEqualTo(2.5);
    assertThat(request.instance.healthy).isFalse();
    assertThat(request.instance.enabled).isTrue();
    assertThat(request.instance.ephemeral).isTrue();
    assertThat(request.instance.clusterName).isEqualTo("east");
    assertThat(request.instance.metadata)
        .containsOnly(
            Map.entry("version", "1.0"),
            Map.entry("zone", "\u00e9st"),
            Map.entry("preserved.heart.beat.interval", "3000"));
    readsTheSameAsDatabind("InstanceRequest", body);
  }

  @Test
  void readsTheOfficialClientsOtherNamingRequestsOnTheStreamingPathAsDatabindReadsThem()
      throws Exception {
    byte[] deregister =
        onTheWire(
            new com.alibaba.nacos.api.naming.remote.request.InstanceRequest(
                "dev", "orders", "G", "deregisterInstance", officialInstance(8080)));
    assertThat(streamed(NamingBodyDecoders::instance, deregister).type)
        .isEqualTo("deregisterInstance");
    readsTheSameAsDatabind("InstanceRequest", deregister);

    Instance persistent = officialInstance(5432);
    persistent.setEphemeral(false);
    byte[] persistentBody =
        onTheWire(
            new com.alibaba.nacos.api.naming.remote.request.PersistentInstanceRequest(
                "dev", "database", "G", "registerInstance", persistent));
    assertThat(streamed(NamingBodyDecoders::persistent, persistentBody).instance.ephemeral)
        .isFalse();
    readsTheSameAsDatabind("PersistentInstanceRequest", persistentBody);

    byte[] batch =
        onTheWire(
            new com.alibaba.nacos.api.naming.remote.request.BatchInstanceRequest(
                "dev",
                "orders",
                "G",
                "batchRegisterInstance",
                List.of(officialInstance(8080), officialInstance(8081))));
    BatchInstanceRequest batchRequest = streamed(NamingBodyDecoders::batch, batch);
    assertThat(batchRequest.instances).extracting(i -> i.port).containsExactly(8080, 8081);
    readsTheSameAsDatabind("BatchInstanceRequest", batch);

    com.alibaba.nacos.api.naming.remote.request.ServiceQueryRequest officialQuery =
        new com.alibaba.nacos.api.naming.remote.request.ServiceQueryRequest("dev", "orders", "G");
    officialQuery.setCluster("east,west");
    officialQuery.setHealthyOnly(true);
    officialQuery.setUdpPort(7);
    byte[] query = onTheWire(officialQuery);
    ServiceQueryRequest queryRequest = streamed(NamingBodyDecoders::query, query);
    assertThat(queryRequest.cluster).isEqualTo("east,west");
    assertThat(queryRequest.healthyOnly).isTrue();
    assertThat(queryRequest.udpPort).isEqualTo(7);
    readsTheSameAsDatabind("ServiceQueryRequest", query);

    byte[] unsubscribe =
        onTheWire(
            new com.alibaba.nacos.api.naming.remote.request.SubscribeServiceRequest(
                "dev", "G", "orders", "east", false));
    SubscribeServiceRequest subscription = streamed(NamingBodyDecoders::subscribe, unsubscribe);
    assertThat(subscription.subscribe).isFalse();
    assertThat(subscription.clusters).isEqualTo("east");
    readsTheSameAsDatabind("SubscribeServiceRequest", unsubscribe);
  }

  @Test
  void leavesMissingFieldsUnsetAsDatabindDoes() throws Exception {
    InstanceRequest empty = streamed(NamingBodyDecoders::instance, utf8("{}"));
    assertThat(empty.instance).isNull();
    assertThat(empty.serviceName).isNull();
    readsTheSameAsDatabind("InstanceRequest", utf8("{}"));

    byte[] noPort = utf8("{\"serviceName\":\"s\",\"instance\":{\"ip\":\"1.2.3.4\"}}");
    InstanceRequest request = streamed(NamingBodyDecoders::instance, noPort);
    assertThat(request.instance.port).isNull();
    assertThat(request.instance.metadata).isNull();
    readsTheSameAsDatabind("InstanceRequest", noPort);

    SubscribeServiceRequest subscribe =
        streamed(NamingBodyDecoders::subscribe, utf8("{\"serviceName\":\"s\"}"));
    assertThat(subscribe.subscribe).isTrue();
  }

  @Test
  void declinesUnusualShapesWhichDatabindThenReadsOrRefusesAsBefore() {
    List<String> unusual =
        List.of(
            // coerced by databind: strings for numbers and booleans, a fraction for an int
            "{\"instance\":{\"ip\":\"1.2.3.4\",\"port\":\"8080\",\"healthy\":\"false\"}}",
            "{\"instance\":{\"ip\":\"1.2.3.4\",\"port\":80.5}}",
            "{\"serviceName\":7,\"instance\":{\"ip\":\"1.2.3.4\",\"port\":1}}",
            // refused by databind: wrong types, out of range, malformed
            "{\"instance\":{\"ip\":\"1.2.3.4\",\"port\":true}}",
            "{\"instance\":{\"ip\":\"1.2.3.4\",\"port\":99999999999}}",
            "{\"instance\":{\"ip\":{}}}",
            "{\"instance\":[1]}",
            "{\"instance\":{\"metadata\":[\"a\"]}}",
            "{\"type\":\"registerInstance\",\"instance\":{\"ip\":\"1",
            "[]",
            "",
            // a map databind builds its own way: a duplicate key, a null or non-string value
            "{\"instance\":{\"metadata\":{\"k\":\"a\",\"k\":\"b\"}}}",
            "{\"instance\":{\"metadata\":{\"k\":null}}}",
            "{\"instance\":{\"metadata\":{\"k\":1}}}");
    for (String json : unusual) {
      assertThatThrownBy(() -> streamed(NamingBodyDecoders::instance, utf8(json)))
          .as(json)
          .isInstanceOfAny(BodyDecoder.Declined.class, IOException.class);
      readsTheSameAsDatabind("InstanceRequest", utf8(json));
    }
    assertThatThrownBy(
            () ->
                streamed(
                    NamingBodyDecoders::batch, utf8("{\"instances\":[null,{\"ip\":\"1.1.1.1\"}]}")))
        .isInstanceOf(BodyDecoder.Declined.class);
    readsTheSameAsDatabind("BatchInstanceRequest", utf8("{\"instances\":[null]}"));
    assertThatThrownBy(() -> streamed(NamingBodyDecoders::query, utf8("{\"healthyOnly\":null}")))
        .isInstanceOf(BodyDecoder.Declined.class);
    readsTheSameAsDatabind("ServiceQueryRequest", utf8("{\"healthyOnly\":null,\"udpPort\":\"7\"}"));
  }

  @Test
  void readsMetadataUpToTheEntryLimitAndLeavesLargerOnesToDatabindAndTheValidator()
      throws Exception {
    StringBuilder entries = new StringBuilder();
    for (int i = 0; i < 128; i++) {
      entries.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":\"v\"");
    }
    byte[] atTheLimit = utf8("{\"instance\":{\"ip\":\"1.2.3.4\",\"metadata\":{" + entries + "}}}");
    assertThat(streamed(NamingBodyDecoders::instance, atTheLimit).instance.metadata).hasSize(128);
    readsTheSameAsDatabind("InstanceRequest", atTheLimit);

    byte[] overTheLimit =
        utf8("{\"instance\":{\"ip\":\"1.2.3.4\",\"metadata\":{" + entries + ",\"k\":\"v\"}}}");
    assertThatThrownBy(() -> streamed(NamingBodyDecoders::instance, overTheLimit))
        .isInstanceOf(BodyDecoder.Declined.class);
    readsTheSameAsDatabind("InstanceRequest", overTheLimit);

    String big = "x".repeat(20_000);
    byte[] largeValue =
        utf8("{\"instance\":{\"ip\":\"1.2.3.4\",\"metadata\":{\"k\":\"" + big + "\"}}}");
    assertThat(streamed(NamingBodyDecoders::instance, largeValue).instance.metadata.get("k"))
        .isEqualTo(big);
    readsTheSameAsDatabind("InstanceRequest", largeValue);
  }

  @Test
  void aLaterDuplicateFieldReplacesTheEarlierOneAsInDatabind() throws Exception {
    byte[] twice =
        utf8(
            "{\"instance\":{\"ip\":\"1.1.1.1\",\"port\":1,\"metadata\":{\"a\":\"b\"}},"
                + "\"instance\":{\"port\":2},\"type\":\"x\",\"type\":null}");
    InstanceRequest request = streamed(NamingBodyDecoders::instance, twice);
    assertThat(request.instance.port).isEqualTo(2);
    assertThat(request.instance.ip).isNull();
    assertThat(request.type).isNull();
    readsTheSameAsDatabind("InstanceRequest", twice);
  }
}
