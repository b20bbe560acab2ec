package io.sluice.server.naming.grpc;

import static io.sluice.server.protocol.grpc.BodyDecoder.bool;
import static io.sluice.server.protocol.grpc.BodyDecoder.booleanOrNull;
import static io.sluice.server.protocol.grpc.BodyDecoder.decline;
import static io.sluice.server.protocol.grpc.BodyDecoder.intValue;
import static io.sluice.server.protocol.grpc.BodyDecoder.integer;
import static io.sluice.server.protocol.grpc.BodyDecoder.number;
import static io.sluice.server.protocol.grpc.BodyDecoder.skip;
import static io.sluice.server.protocol.grpc.BodyDecoder.startObject;
import static io.sluice.server.protocol.grpc.BodyDecoder.string;
import static io.sluice.server.protocol.grpc.BodyDecoder.stringMap;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.sluice.server.naming.InstanceValidator;
import io.sluice.server.naming.grpc.NamingMessages.BatchInstanceRequest;
import io.sluice.server.naming.grpc.NamingMessages.InstanceBody;
import io.sluice.server.naming.grpc.NamingMessages.InstanceRequest;
import io.sluice.server.naming.grpc.NamingMessages.NamingRequest;
import io.sluice.server.naming.grpc.NamingMessages.OneInstanceRequest;
import io.sluice.server.naming.grpc.NamingMessages.PersistentInstanceRequest;
import io.sluice.server.naming.grpc.NamingMessages.ServiceQueryRequest;
import io.sluice.server.naming.grpc.NamingMessages.SubscribeServiceRequest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The streaming decoders of the hot naming requests (registrations, queries, subscriptions): each
 * reads the fields its handler uses straight from the parser into the request, and declines
 * whatever is not the plain shape clients send, as {@link
 * io.sluice.server.protocol.grpc.BodyDecoder} says. Field names are the JSON names of {@link
 * NamingMessages}; a field added there must be added here too, or it is skipped on the fast path
 * ({@code NamingBodyDecodersTest} reads every field both ways).
 */
public final class NamingBodyDecoders {
  private NamingBodyDecoders() {}

  public static InstanceRequest instance(JsonParser json) throws IOException {
    return oneInstance(json, new InstanceRequest());
  }

  public static PersistentInstanceRequest persistent(JsonParser json) throws IOException {
    return oneInstance(json, new PersistentInstanceRequest());
  }

  public static BatchInstanceRequest batch(JsonParser json) throws IOException {
    startObject(json);
    BatchInstanceRequest request = new BatchInstanceRequest();
    String field;
    while ((field = json.nextFieldName()) != null) {
      json.nextToken();
      switch (field) {
        case "type" -> request.type = string(json);
        case "instances" -> request.instances = bodies(json);
        default -> namingField(request, field, json);
      }
    }
    return request;
  }

  public static ServiceQueryRequest query(JsonParser json) throws IOException {
    startObject(json);
    ServiceQueryRequest request = new ServiceQueryRequest();
    String field;
    while ((field = json.nextFieldName()) != null) {
      json.nextToken();
      switch (field) {
        case "cluster" -> request.cluster = string(json);
        case "healthyOnly" -> request.healthyOnly = bool(json);
        case "udpPort" -> request.udpPort = intValue(json);
        default -> namingField(request, field, json);
      }
    }
    return request;
  }

  public static SubscribeServiceRequest subscribe(JsonParser json) throws IOException {
    startObject(json);
    SubscribeServiceRequest request = new SubscribeServiceRequest();
    String field;
    while ((field = json.nextFieldName()) != null) {
      json.nextToken();
      switch (field) {
        case "subscribe" -> request.subscribe = bool(json);
        case "clusters" -> request.clusters = string(json);
        default -> namingField(request, field, json);
      }
    }
    return request;
  }

  private static <R extends OneInstanceRequest> R oneInstance(JsonParser json, R request)
      throws IOException {
    startObject(json);
    String field;
    while ((field = json.nextFieldName()) != null) {
      json.nextToken();
      switch (field) {
        case "type" -> request.type = string(json);
        case "instance" -> request.instance = body(json);
        default -> namingField(request, field, json);
      }
    }
    return request;
  }

  /** The fields every naming request has; anything else is skipped, as databind skips it. */
  private static void namingField(NamingRequest request, String field, JsonParser json)
      throws IOException {
    switch (field) {
      case "requestId" -> request.requestId = string(json);
      case "namespace" -> request.namespace = string(json);
      case "serviceName" -> request.serviceName = string(json);
      case "groupName" -> request.groupName = string(json);
      default -> skip(json);
    }
  }

  /** An instance object, or null; its unknown fields (the client's heartbeat getters) skipped. */
  private static InstanceBody body(JsonParser json) throws IOException {
    JsonToken token = json.currentToken();
    if (token == JsonToken.VALUE_NULL) {
      return null;
    }
    if (token != JsonToken.START_OBJECT) {
      throw decline();
    }
    InstanceBody body = new InstanceBody();
    String field;
    while ((field = json.nextFieldName()) != null) {
      json.nextToken();
      switch (field) {
        case "instanceId" -> body.instanceId = string(json);
        case "ip" -> body.ip = string(json);
        case "port" -> body.port = integer(json);
        case "weight" -> body.weight = number(json);
        case "healthy" -> body.healthy = booleanOrNull(json);
        case "enabled" -> body.enabled = booleanOrNull(json);
        case "ephemeral" -> body.ephemeral = booleanOrNull(json);
        case "clusterName" -> body.clusterName = string(json);
        case "serviceName" -> body.serviceName = string(json);
        case "metadata" -> body.metadata = stringMap(json, InstanceValidator.MAX_METADATA_ENTRIES);
        default -> skip(json);
      }
    }
    return body;
  }

  /** An array of instance objects, or null; a null element declines. */
  private static List<InstanceBody> bodies(JsonParser json) throws IOException {
    JsonToken token = json.currentToken();
    if (token == JsonToken.VALUE_NULL) {
      return null;
    }
    if (token != JsonToken.START_ARRAY) {
      throw decline();
    }
    List<InstanceBody> bodies = new ArrayList<>();
    while (json.nextToken() != JsonToken.END_ARRAY) {
      InstanceBody body = body(json);
      if (body == null) {
        throw decline();
      }
      bodies.add(body);
    }
    return bodies;
  }
}
