package io.sluice.server.protocol.grpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Encodes and decodes {@link Payload} in the protobuf wire format of Nacos's {@code
 * nacos_grpc_service.proto}, by hand: the message has five fields, and a hand-written codec spares
 * a generated-code dependency and an intermediate object per message.
 *
 * <pre>
 * message Metadata { string type = 3; string clientIp = 8; map&lt;string,string&gt; headers = 7; }
 * message Payload  { Metadata metadata = 2; google.protobuf.Any body = 3; }
 * message Any      { string type_url = 1; bytes value = 2; }   // Nacos leaves type_url empty
 * </pre>
 *
 * Unknown fields are skipped as protobuf requires; malformed input raises {@link
 * MalformedPayloadException} and never reads past the buffer.
 */
public final class PayloadCodec {
  /** The length of a gRPC message's prefix: the compressed flag and the length, big-endian. */
  static final int GRPC_PREFIX_BYTES = 5;

  private static final int WIRE_VARINT = 0;
  private static final int WIRE_FIXED64 = 1;
  private static final int WIRE_LENGTH_DELIMITED = 2;
  private static final int WIRE_FIXED32 = 5;

  private static final int PAYLOAD_METADATA = 2;
  private static final int PAYLOAD_BODY = 3;
  private static final int METADATA_TYPE = 3;
  private static final int METADATA_HEADERS = 7;
  private static final int METADATA_CLIENT_IP = 8;
  private static final int ANY_VALUE = 2;
  private static final int MAP_KEY = 1;
  private static final int MAP_VALUE = 2;

  private PayloadCodec() {}

  public static Payload decode(byte[] bytes) {
    Reader in = new Reader(bytes, 0, bytes.length);
    String type = "";
    String clientIp = "";
    Map<String, String> headers = Map.of();
    byte[] body = null;
    while (in.hasMore()) {
      int tag = in.varint32();
      int field = tag >>> 3;
      int wire = tag & 7;
      if (field == PAYLOAD_METADATA && wire == WIRE_LENGTH_DELIMITED) {
        Reader metadata = in.message();
        while (metadata.hasMore()) {
          int metaTag = metadata.varint32();
          int metaField = metaTag >>> 3;
          int metaWire = metaTag & 7;
          if (metaField == METADATA_TYPE && metaWire == WIRE_LENGTH_DELIMITED) {
            type = metadata.string();
          } else if (metaField == METADATA_CLIENT_IP && metaWire == WIRE_LENGTH_DELIMITED) {
            clientIp = metadata.string();
          } else if (metaField == METADATA_HEADERS && metaWire == WIRE_LENGTH_DELIMITED) {
            if (headers.isEmpty()) {
              headers = new HashMap<>();
            }
            readMapEntry(metadata.message(), headers);
          } else {
            metadata.skip(metaWire);
          }
        }
      } else if (field == PAYLOAD_BODY && wire == WIRE_LENGTH_DELIMITED) {
        Reader any = in.message();
        while (any.hasMore()) {
          int anyTag = any.varint32();
          if ((anyTag >>> 3) == ANY_VALUE && (anyTag & 7) == WIRE_LENGTH_DELIMITED) {
            body = any.bytes();
          } else {
            any.skip(anyTag & 7);
          }
        }
      } else {
        in.skip(wire);
      }
    }
    if (type.isEmpty()) {
      throw new MalformedPayloadException("payload has no metadata.type");
    }
    return new Payload(type, clientIp, headers, body);
  }

  private static void readMapEntry(Reader entry, Map<String, String> into) {
    String key = "";
    String value = "";
    while (entry.hasMore()) {
      int tag = entry.varint32();
      int field = tag >>> 3;
      int wire = tag & 7;
      if (field == MAP_KEY && wire == WIRE_LENGTH_DELIMITED) {
        key = entry.string();
      } else if (field == MAP_VALUE && wire == WIRE_LENGTH_DELIMITED) {
        value = entry.string();
      } else {
        entry.skip(wire);
      }
    }
    into.put(key, value);
  }

  public static byte[] encode(Payload payload) {
    return write(payload, true);
  }

  /**
   * The encoding of {@code payload} up to its body: {@code head(p)} followed by {@code p.body()} is
   * {@code encode(p)}, so a stream can hand the body to its reader without copying it here.
   */
  static byte[] head(Payload payload) {
    return write(payload, false);
  }

  private static byte[] write(Payload payload, boolean withBody) {
    byte[] type = utf8(payload.type());
    byte[] clientIp = utf8(payload.clientIp());
    int metadataSize = fieldSize(METADATA_TYPE, type.length);
    if (clientIp.length > 0) {
      metadataSize += fieldSize(METADATA_CLIENT_IP, clientIp.length);
    }
    byte[][] headerEntries = new byte[payload.headers().size() * 2][];
    int i = 0;
    for (Map.Entry<String, String> header : payload.headers().entrySet()) {
      byte[] key = utf8(header.getKey());
      byte[] value = utf8(header.getValue());
      headerEntries[i++] = key;
      headerEntries[i++] = value;
      metadataSize += fieldSize(METADATA_HEADERS, mapEntrySize(key, value));
    }
    int anySize = payload.body().length == 0 ? 0 : fieldSize(ANY_VALUE, payload.body().length);
    int total = fieldSize(PAYLOAD_METADATA, metadataSize) + fieldSize(PAYLOAD_BODY, anySize);

    Writer out = new Writer(withBody ? total : total - payload.body().length);
    out.tag(PAYLOAD_METADATA, WIRE_LENGTH_DELIMITED);
    out.varint32(metadataSize);
    out.lengthDelimited(METADATA_TYPE, type);
    for (int h = 0; h < headerEntries.length; h += 2) {
      byte[] key = headerEntries[h];
      byte[] value = headerEntries[h + 1];
      out.tag(METADATA_HEADERS, WIRE_LENGTH_DELIMITED);
      out.varint32(mapEntrySize(key, value));
      out.lengthDelimited(MAP_KEY, key);
      out.lengthDelimited(MAP_VALUE, value);
    }
    if (clientIp.length > 0) {
      out.lengthDelimited(METADATA_CLIENT_IP, clientIp);
    }
    out.tag(PAYLOAD_BODY, WIRE_LENGTH_DELIMITED);
    out.varint32(anySize);
    if (anySize > 0) {
      out.tag(ANY_VALUE, WIRE_LENGTH_DELIMITED);
      out.varint32(payload.body().length);
      if (withBody) {
        out.bytes(payload.body());
      }
    }
    return out.finish();
  }

  /**
   * The length of {@link #writeHead}'s bytes: the head of a payload that has a type and a body of
   * {@code bodyLength} bytes, no client IP and no headers (every answer the server encodes).
   */
  static int headLength(byte[] type, int bodyLength) {
    int anySize = bodyLength == 0 ? 0 : fieldSize(ANY_VALUE, bodyLength);
    return fieldSize(PAYLOAD_METADATA, fieldSize(METADATA_TYPE, type.length))
        + fieldSize(PAYLOAD_BODY, anySize)
        - bodyLength;
  }

  /**
   * Writes the head of a payload that has only a type (UTF-8) and a body of {@code bodyLength}
   * bytes: the same bytes as {@link #head} of {@code Payload.of(type, body)}, written straight into
   * {@code out}, so the body can follow without an array of its own.
   */
  static void writeHead(ByteBuf out, byte[] type, int bodyLength) {
    int anySize = bodyLength == 0 ? 0 : fieldSize(ANY_VALUE, bodyLength);
    out.writeByte(PAYLOAD_METADATA << 3 | WIRE_LENGTH_DELIMITED);
    writeVarint(out, fieldSize(METADATA_TYPE, type.length));
    out.writeByte(METADATA_TYPE << 3 | WIRE_LENGTH_DELIMITED);
    writeVarint(out, type.length);
    out.writeBytes(type);
    out.writeByte(PAYLOAD_BODY << 3 | WIRE_LENGTH_DELIMITED);
    writeVarint(out, anySize);
    if (anySize > 0) {
      out.writeByte(ANY_VALUE << 3 | WIRE_LENGTH_DELIMITED);
      writeVarint(out, bodyLength);
    }
  }

  /**
   * {@code payload} as one uncompressed gRPC message, in one buffer from {@code alloc}: the 5-byte
   * prefix, the payload's head, then its body. The caller owns the buffer.
   */
  static ByteBuf grpcMessage(Payload payload, ByteBufAllocator alloc) {
    byte[] head = head(payload);
    byte[] body = payload.body();
    int length = head.length + body.length;
    ByteBuf message = alloc.buffer(GRPC_PREFIX_BYTES + length);
    message.writeByte(0).writeInt(length).writeBytes(head).writeBytes(body);
    return message;
  }

  private static void writeVarint(ByteBuf out, int value) {
    while ((value & ~0x7F) != 0) {
      out.writeByte((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    out.writeByte(value);
  }

  private static int mapEntrySize(byte[] key, byte[] value) {
    return fieldSize(MAP_KEY, key.length) + fieldSize(MAP_VALUE, value.length);
  }

  private static int fieldSize(int field, int length) {
    return varintSize(field << 3) + varintSize(length) + length;
  }

  private static int varintSize(int value) {
    if ((value & (~0 << 7)) == 0) return 1;
    if ((value & (~0 << 14)) == 0) return 2;
    if ((value & (~0 << 21)) == 0) return 3;
    if ((value & (~0 << 28)) == 0) return 4;
    return 5;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** A bounded view of a byte array; every read checks the bound first. */
  private static final class Reader {
    private final byte[] buf;
    private int pos;
    private final int limit;

    Reader(byte[] buf, int pos, int limit) {
      this.buf = buf;
      this.pos = pos;
      this.limit = limit;
    }

    boolean hasMore() {
      return pos < limit;
    }

    int varint32() {
      long value = varint64();
      return (int) value;
    }

    long varint64() {
      long result = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        if (pos >= limit) {
          throw new MalformedPayloadException("truncated varint");
        }
        byte b = buf[pos++];
        result |= (long) (b & 0x7F) << shift;
        if ((b & 0x80) == 0) {
          return result;
        }
      }
      throw new MalformedPayloadException("varint longer than 10 bytes");
    }

    private int length() {
      long length = varint64();
      if (length < 0 || length > limit - pos) {
        throw new MalformedPayloadException("length " + length + " exceeds the message");
      }
      return (int) length;
    }

    Reader message() {
      int length = length();
      Reader nested = new Reader(buf, pos, pos + length);
      pos += length;
      return nested;
    }

    String string() {
      int length = length();
      String s = new String(buf, pos, length, StandardCharsets.UTF_8);
      pos += length;
      return s;
    }

    byte[] bytes() {
      int length = length();
      byte[] copy = new byte[length];
      System.arraycopy(buf, pos, copy, 0, length);
      pos += length;
      return copy;
    }

    void skip(int wireType) {
      switch (wireType) {
        case WIRE_VARINT -> varint64();
        case WIRE_FIXED64 -> advance(8);
        case WIRE_LENGTH_DELIMITED -> advance(length());
        case WIRE_FIXED32 -> advance(4);
        default -> throw new MalformedPayloadException("unsupported wire type " + wireType);
      }
    }

    private void advance(int n) {
      if (n > limit - pos) {
        throw new MalformedPayloadException("field runs past the message");
      }
      pos += n;
    }
  }

  private static final class Writer {
    private final byte[] buf;
    private int pos;

    Writer(int size) {
      this.buf = new byte[size];
    }

    void tag(int field, int wire) {
      varint32((field << 3) | wire);
    }

    void varint32(int value) {
      while ((value & ~0x7F) != 0) {
        buf[pos++] = (byte) ((value & 0x7F) | 0x80);
        value >>>= 7;
      }
      buf[pos++] = (byte) value;
    }

    void lengthDelimited(int field, byte[] bytes) {
      tag(field, WIRE_LENGTH_DELIMITED);
      varint32(bytes.length);
      bytes(bytes);
    }

    void bytes(byte[] bytes) {
      System.arraycopy(bytes, 0, buf, pos, bytes.length);
      pos += bytes.length;
    }

    byte[] finish() {
      if (pos != buf.length) {
        throw new IllegalStateException("encoded " + pos + " bytes, expected " + buf.length);
      }
      return buf;
    }
  }
}
