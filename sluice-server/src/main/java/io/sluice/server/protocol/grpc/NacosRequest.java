package io.sluice.server.protocol.grpc;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * Base of every request of Nacos's gRPC protocol, in either direction. Wire DTOs mirror the JSON
 * field by field, so they are plain classes with public fields.
 *
 * <p>Request headers travel in the payload's metadata, not in the JSON body (the official client
 * always writes {@code "headers":{}}), so {@link #metadataHeaders} is filled from the metadata on
 * receipt and written as an empty object on send.
 */
public abstract class NacosRequest {
  public String requestId;

  @JsonIgnore public Map<String, String> metadataHeaders = Map.of();

  /** What the official client's JSON calls {@code module}; readers ignore it. */
  public abstract String module();

  /** Always empty on the wire; the real headers go in the payload metadata. */
  @JsonProperty("headers")
  Map<String, String> wireHeaders() {
    return Map.of();
  }

  @JsonProperty("module")
  String wireModule() {
    return module();
  }

  /**
   * What this request reads or writes, for an access check; none (the default) means it touches no
   * namespace's data, and needs only a valid login when auth is on.
   */
  public List<RequestResource> resources() {
    return List.of();
  }

  public String header(String name) {
    String value = metadataHeaders.get(name);
    if (value == null) {
      // Nacos treats request headers case-insensitively.
      for (Map.Entry<String, String> header : metadataHeaders.entrySet()) {
        if (header.getKey().equalsIgnoreCase(name)) {
          return header.getValue();
        }
      }
    }
    return value;
  }
}
