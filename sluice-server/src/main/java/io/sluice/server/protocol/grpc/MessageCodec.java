package io.sluice.server.protocol.grpc;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns payloads into message objects and back: the JSON body read with the class registered for
 * the payload's type name, as the official client's {@code PayloadRegistry} does.
 *
 * <p>Jackson settings follow the official client so our JSON reads the same: unknown properties
 * ignored, nulls omitted. Getters are never used as setters, so a crafted body cannot call into a
 * read-only property.
 */
public final class MessageCodec {
  private final ObjectMapper mapper;
  private final Map<String, ObjectReader> readers = new ConcurrentHashMap<>();
  private final Map<Class<?>, ObjectWriter> writers = new ConcurrentHashMap<>();

  public MessageCodec() {
    this.mapper =
        JsonMapper.builder()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .configure(MapperFeature.USE_GETTERS_AS_SETTERS, false)
            .serializationInclusion(JsonInclude.Include.NON_NULL)
            .build();
  }

  /** Makes payloads of {@code type}'s simple class name readable. */
  public void register(Class<?> type) {
    readers.put(type.getSimpleName(), mapper.readerFor(type));
  }

  public boolean knows(String typeName) {
    return readers.containsKey(typeName);
  }

  /** Reads the body of {@code payload} as the class registered for its type name. */
  public Object decode(Payload payload) throws IOException {
    ObjectReader reader = readers.get(payload.type());
    if (reader == null) {
      throw new IOException("unknown payload type " + payload.type());
    }
    Object message = reader.readValue(payload.body());
    if (message == null) {
      throw new IOException("empty body for " + payload.type());
    }
    if (message instanceof NacosRequest request) {
      request.metadataHeaders = payload.headers();
    }
    return message;
  }

  /** Reads a JSON body as {@code type}, whatever the payload's type name says. */
  public <T> T decodeAs(Class<T> type, byte[] body) throws IOException {
    return mapper.readerFor(type).readValue(body);
  }

  public Payload encode(Object message) {
    ObjectWriter writer = writers.computeIfAbsent(message.getClass(), mapper::writerFor);
    try {
      return Payload.of(message.getClass().getSimpleName(), writer.writeValueAsBytes(message));
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode " + message.getClass().getSimpleName(), e);
    }
  }

  /** The shared mapper, for protocol code that writes JSON outside of payloads. */
  public ObjectMapper mapper() {
    return mapper;
  }
}
