package io.sluice.server.protocol.grpc;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns payloads into message objects and back: the JSON body read with the class registered for
 * the payload's type name, as the official client's {@code PayloadRegistry} does.
 *
 * <p>Jackson settings follow the official client so our JSON reads the same: unknown properties
 * ignored, nulls omitted. Getters are never used as setters, so a crafted body cannot call into a
 * read-only property.
 *
 * <p>A type registered with a {@link BodyDecoder} is read by it first, with the streaming parser; a
 * body it declines is read by databind as any other, so the two readings never disagree on what is
 * accepted or on an error.
 */
public final class MessageCodec {
  private static final byte[] REQUEST_ID_FIELD =
      "{\"requestId\":\"".getBytes(StandardCharsets.US_ASCII);

  private final ObjectMapper mapper;
  private final Map<String, Reader> readers = new ConcurrentHashMap<>();
  private final Map<Class<?>, ObjectWriter> writers = new ConcurrentHashMap<>();

  /** The payload type of each response class (its simple name), as UTF-8. */
  private final Map<Class<?>, byte[]> typeNames = new ConcurrentHashMap<>();

  public MessageCodec() {
    this.mapper =
        JsonMapper.builder()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .configure(MapperFeature.USE_GETTERS_AS_SETTERS, false)
            .serializationInclusion(JsonInclude.Include.NON_NULL)
            .build();
  }

  /** How one payload type is read: its streaming decoder if it has one, else databind. */
  private record Reader(ObjectReader databind, BodyDecoder<?> streaming) {}

  /** Makes payloads of {@code type}'s simple class name readable, by databind. */
  public void register(Class<?> type) {
    readers.put(type.getSimpleName(), new Reader(mapper.readerFor(type), null));
  }

  /**
   * Makes payloads of {@code type}'s simple class name readable by {@code decoder}, and by databind
   * for whatever it declines.
   */
  public <R extends NacosRequest> void register(Class<R> type, BodyDecoder<R> decoder) {
    readers.put(type.getSimpleName(), new Reader(mapper.readerFor(type), decoder));
  }

  public boolean knows(String typeName) {
    return readers.containsKey(typeName);
  }

  /** Reads the body of {@code payload} as the class registered for its type name. */
  public Object decode(Payload payload) throws IOException {
    Reader reader = readers.get(payload.type());
    if (reader == null) {
      throw new IOException("unknown payload type " + payload.type());
    }
    Object message = null;
    if (reader.streaming() != null) {
      message = streamed(reader.streaming(), payload.body());
    }
    if (message == null) {
      message = reader.databind().readValue(payload.body());
    }
    if (message == null) {
      throw new IOException("empty body for " + payload.type());
    }
    if (message instanceof NacosRequest request) {
      request.metadataHeaders = payload.headers();
    }
    return message;
  }

  /**
   * What {@code decoder} reads from {@code body}, or null where it declines or the JSON is
   * malformed (databind then says how, in its words). A decoder's own bug is not caught: it fails
   * the call loudly, and the fuzz test finds it.
   */
  private Object streamed(BodyDecoder<?> decoder, byte[] body) {
    try (JsonParser json = mapper.getFactory().createParser(body)) {
      return decoder.decode(json);
    } catch (BodyDecoder.Declined | IOException declined) {
      return null;
    }
  }

  /** Reads a JSON body as {@code type}, whatever the payload's type name says. */
  public <T> T decodeAs(Class<T> type, byte[] body) throws IOException {
    return mapper.readerFor(type).readValue(body);
  }

  public Payload encode(Object message) {
    if (message instanceof NacosResponse response) {
      int after = response.encodedLengthAfterRequestId();
      if (after >= 0) {
        int bodyLength = requestIdFieldLength(response.requestId) + after;
        byte[] body = new byte[bodyLength];
        writeSplicedBody(response, bodyLength, Unpooled.wrappedBuffer(body).writerIndex(0));
        return Payload.of(message.getClass().getSimpleName(), body);
      }
    }
    ObjectWriter writer = writers.computeIfAbsent(message.getClass(), mapper::writerFor);
    try {
      return Payload.of(message.getClass().getSimpleName(), writer.writeValueAsBytes(message));
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode " + message.getClass().getSimpleName(), e);
    }
  }

  /**
   * {@code message} as one uncompressed gRPC message: the 5-byte prefix, then exactly the bytes of
   * {@code PayloadCodec.encode(encode(message))}. A pre-encoded response is written from its cached
   * bytes straight into a buffer from {@code alloc}, with no body array or payload of its own (the
   * netty-h2 transport's answers); one with a {@linkplain NacosResponse#sharedTail shared tail} is
   * a composite of a small head from {@code alloc} and that tail, so the cached bytes are not
   * copied at all. The caller owns the message and releases it; releasing never frees a shared
   * tail.
   */
  public ByteBuf encodeGrpcMessage(Object message, ByteBufAllocator alloc) {
    if (message instanceof NacosResponse response) {
      int after = response.encodedLengthAfterRequestId();
      if (after >= 0) {
        byte[] type = typeName(message.getClass());
        int bodyLength = requestIdFieldLength(response.requestId) + after;
        int length = PayloadCodec.headLength(type, bodyLength) + bodyLength;
        ByteBuf tail = response.sharedTail();
        int tailLength = tail == null ? 0 : tail.readableBytes();
        ByteBuf out = alloc.buffer(PayloadCodec.GRPC_PREFIX_BYTES + length - tailLength);
        try {
          out.writeByte(0).writeInt(length);
          PayloadCodec.writeHead(out, type, bodyLength);
          if (tail == null) {
            writeSplicedBody(response, bodyLength, out);
            return out;
          }
          writeSplicedHead(response, bodyLength - tailLength, out);
          return alloc.compositeBuffer(2).addComponents(true, out, tail);
        } catch (RuntimeException e) {
          out.release();
          throw e;
        }
      }
    }
    return PayloadCodec.grpcMessage(encode(message), alloc);
  }

  private byte[] typeName(Class<?> type) {
    byte[] name = typeNames.get(type);
    if (name == null) {
      name = type.getSimpleName().getBytes(StandardCharsets.UTF_8);
      typeNames.put(type, name);
    }
    return name;
  }

  /**
   * A pre-encoded response's body: {@code {"requestId":"<id>",} (the id JSON-escaped, since the
   * client chose it) and then the response's own bytes, copied once into {@code out}; exactly
   * {@code bodyLength} bytes, as {@link #requestIdFieldLength} and the response promised.
   */
  private static void writeSplicedBody(NacosResponse response, int bodyLength, ByteBuf out) {
    int start = out.writerIndex();
    writeRequestIdField(response.requestId, out);
    response.writeAfterRequestId(out);
    checkWritten(response, out.writerIndex() - start, bodyLength);
  }

  /** As {@link #writeSplicedBody}, up to the response's shared tail: {@code headLength} bytes. */
  private static void writeSplicedHead(NacosResponse response, int headLength, ByteBuf out) {
    int start = out.writerIndex();
    writeRequestIdField(response.requestId, out);
    response.writeBeforeSharedTail(out);
    checkWritten(response, out.writerIndex() - start, headLength);
  }

  private static void writeRequestIdField(String id, ByteBuf out) {
    if (id == null) {
      out.writeByte('{');
    } else {
      out.writeBytes(REQUEST_ID_FIELD);
      if (isPlainJson(id)) {
        out.writeCharSequence(id, StandardCharsets.US_ASCII);
      } else {
        out.writeBytes(JsonStringEncoder.getInstance().quoteAsUTF8(id));
      }
      out.writeByte('"').writeByte(',');
    }
  }

  private static void checkWritten(NacosResponse response, int written, int promised) {
    if (written != promised) {
      throw new IllegalStateException(
          response.getClass().getSimpleName() + " wrote " + written + " bytes, not " + promised);
    }
  }

  /** The length of {@code {"requestId":"<id>",}, or of {@code {} when there is no id. */
  private static int requestIdFieldLength(String id) {
    if (id == null) {
      return 1;
    }
    int quoted =
        isPlainJson(id) ? id.length() : JsonStringEncoder.getInstance().quoteAsUTF8(id).length;
    return REQUEST_ID_FIELD.length + quoted + 2;
  }

  /**
   * Whether {@code s} is printable ASCII that JSON leaves unescaped (no quote, backslash or control
   * character), so its UTF-8 is its chars: every request id the official clients choose.
   */
  private static boolean isPlainJson(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
        return false;
      }
    }
    return true;
  }

  /** The shared mapper, for protocol code that writes JSON outside of payloads. */
  public ObjectMapper mapper() {
    return mapper;
  }
}
