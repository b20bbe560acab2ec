package io.sluice.server.naming;

import io.sluice.server.replication.LengthPrefixedString;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * A change to the replicated part of the registry: persistent instances and service metadata.
 * Ephemeral instances never come here; they live and die with their owner.
 */
public sealed interface NamingCommand {
  byte PUT_INSTANCE = 1;
  byte REMOVE_INSTANCE = 2;
  byte PUT_SERVICE = 3;
  byte REMOVE_SERVICE = 4;
  int MAX_STRING_BYTES = 1024 * 1024;

  ServiceKey service();

  record PutInstance(ServiceKey service, Instance instance) implements NamingCommand {}

  record RemoveInstance(ServiceKey service, String ip, int port, String cluster)
      implements NamingCommand {}

  record PutService(ServiceKey service, ServiceMeta meta) implements NamingCommand {}

  record RemoveService(ServiceKey service) implements NamingCommand {}

  static byte[] encode(NamingCommand command) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      if (command instanceof PutInstance put) {
        out.writeByte(PUT_INSTANCE);
        writeService(out, put.service());
        writeInstance(out, put.instance());
      } else if (command instanceof RemoveInstance remove) {
        out.writeByte(REMOVE_INSTANCE);
        writeService(out, remove.service());
        writeString(out, remove.ip());
        out.writeInt(remove.port());
        writeString(out, remove.cluster());
      } else if (command instanceof PutService put) {
        out.writeByte(PUT_SERVICE);
        writeService(out, put.service());
        writeMeta(out, put.meta());
      } else if (command instanceof RemoveService remove) {
        out.writeByte(REMOVE_SERVICE);
        writeService(out, remove.service());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  static NamingCommand decode(ByteBuffer buffer) throws IOException {
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
    byte op = in.readByte();
    ServiceKey service = readService(in);
    return switch (op) {
      case PUT_INSTANCE -> new PutInstance(service, readInstance(in));
      case REMOVE_INSTANCE ->
          new RemoveInstance(service, readString(in), in.readInt(), readString(in));
      case PUT_SERVICE -> new PutService(service, readMeta(in));
      case REMOVE_SERVICE -> new RemoveService(service);
      default -> throw new IOException("unknown naming command " + op);
    };
  }

  static void writeService(DataOutputStream out, ServiceKey key) throws IOException {
    writeString(out, key.namespace());
    writeString(out, key.group());
    writeString(out, key.name());
  }

  static ServiceKey readService(DataInputStream in) throws IOException {
    return ServiceKey.of(readString(in), readString(in), readString(in));
  }

  static void writeInstance(DataOutputStream out, Instance i) throws IOException {
    // "" stands for the generated id (null in the instance).
    writeString(out, i.instanceId() == null ? "" : i.instanceId());
    writeString(out, i.ip());
    out.writeInt(i.port());
    out.writeDouble(i.weight());
    out.writeBoolean(i.healthy());
    out.writeBoolean(i.enabled());
    out.writeBoolean(i.ephemeral());
    writeString(out, i.clusterName());
    writeMap(out, i.metadata());
    out.writeLong(i.heartBeatIntervalMillis());
    out.writeLong(i.heartBeatTimeoutMillis());
    out.writeLong(i.ipDeleteTimeoutMillis());
  }

  static Instance readInstance(DataInputStream in) throws IOException {
    String instanceId = readString(in);
    return new Instance(
        instanceId.isEmpty() ? null : instanceId,
        readString(in),
        in.readInt(),
        in.readDouble(),
        in.readBoolean(),
        in.readBoolean(),
        in.readBoolean(),
        readString(in),
        readMap(in),
        in.readLong(),
        in.readLong(),
        in.readLong());
  }

  static void writeMeta(DataOutputStream out, ServiceMeta meta) throws IOException {
    out.writeFloat(meta.protectThreshold());
    writeMap(out, meta.metadata());
    out.writeBoolean(meta.selector() != null);
    if (meta.selector() != null) {
      writeString(out, meta.selector());
    }
  }

  static ServiceMeta readMeta(DataInputStream in) throws IOException {
    float threshold = in.readFloat();
    Map<String, String> metadata = readMap(in);
    String selector = in.readBoolean() ? readString(in) : null;
    return new ServiceMeta(threshold, metadata, selector);
  }

  private static void writeMap(DataOutputStream out, Map<String, String> map) throws IOException {
    out.writeInt(map.size());
    for (Map.Entry<String, String> entry : map.entrySet()) {
      writeString(out, entry.getKey());
      writeString(out, entry.getValue());
    }
  }

  private static Map<String, String> readMap(DataInputStream in) throws IOException {
    int size = in.readInt();
    if (size < 0 || size > 100_000) {
      throw new IOException("map of " + size + " entries: corrupt input");
    }
    Map<String, String> map = new HashMap<>();
    for (int i = 0; i < size; i++) {
      map.put(readString(in), readString(in));
    }
    return map;
  }

  private static void writeString(DataOutputStream out, String s) throws IOException {
    LengthPrefixedString.write(out, s);
  }

  private static String readString(DataInputStream in) throws IOException {
    String s = LengthPrefixedString.read(in, MAX_STRING_BYTES);
    if (s == null) {
      throw new IOException("missing string: corrupt input");
    }
    return s;
  }
}
