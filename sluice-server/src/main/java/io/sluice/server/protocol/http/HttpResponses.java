package io.sluice.server.protocol.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;

/**
 * Writes every answer of the HTTP API: plain text, JSON (serialized or rendered already), a body of
 * its own content type, or none. Each does nothing when the response is already answered or its
 * connection gone.
 */
public final class HttpResponses {
  public static final String TEXT_PLAIN = "text/plain;charset=UTF-8";
  public static final String APPLICATION_JSON = "application/json;charset=UTF-8";

  /**
   * Configuration only, never request state: an ObjectMapper is thread-safe once configured, and
   * one shared instance keeps its serializer caches warm.
   */
  private static final ObjectMapper json = new ObjectMapper();

  private HttpResponses() {}

  public static void text(HttpServerResponse response, int status, String body) {
    if (response.ended() || response.closed()) {
      return;
    }
    response.setStatusCode(status).putHeader("Content-Type", TEXT_PLAIN).end(body);
  }

  /** Serializes {@code body} (records, lists, maps, strings, booleans) as the JSON reply. */
  public static void json(HttpServerResponse response, int status, Object body) {
    if (response.ended() || response.closed()) {
      return;
    }
    byte[] bytes;
    try {
      bytes = json.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialize a reply of " + body.getClass(), e);
    }
    response
        .setStatusCode(status)
        .putHeader("Content-Type", APPLICATION_JSON)
        .end(Buffer.buffer(bytes));
  }

  /** A status and no body. */
  public static void empty(HttpServerResponse response, int status) {
    if (response.ended() || response.closed()) {
      return;
    }
    response.setStatusCode(status).end();
  }

  /** A body of its own content type (a config's content, served as its type). */
  public static void body(
      HttpServerResponse response, int status, String contentType, String body) {
    if (response.ended() || response.closed()) {
      return;
    }
    response.setStatusCode(status).putHeader("Content-Type", contentType).end(body);
  }

  /** A JSON body rendered already (a service's cached {@code serviceInfo}). */
  public static void rawJson(HttpServerResponse response, int status, String json) {
    if (response.ended() || response.closed()) {
      return;
    }
    response.setStatusCode(status).putHeader("Content-Type", APPLICATION_JSON).end(json);
  }

  public static void ok(HttpServerResponse response, Object body) {
    json(response, 200, body);
  }

  /** A v2 success: {@code {"code":0,"message":"success","data":...}}. */
  public static void success(HttpServerResponse response, Object data) {
    json(response, 200, NacosResult.success(data));
  }
}
