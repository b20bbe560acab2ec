package io.sluice.server.naming;

import io.sluice.server.replication.CommandFormat;
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
 * Ephemeral instances never come here; they live and die with their owner. A command carries what
 * the accepting node saw of them ({@code ephemeralPresent}: the service had ephemeral instances),
 * so that apply decides from the command and the replicated state alone.
 *
 * <p>Formats ({@link CommandFormat}): {@value #FORMAT} is written, 1 and 2 are read. After the
 * header, {@code byte op} and the service (namespace, group, name), then per op:
 *
 * <pre>
 * 1 put instance            instance
 * 2 remove instance         ip, int port, cluster
 * 3 put service             meta                       (written by format 1 only; unconditional)
 * 4 remove service          -                          (written by format 1 only; unconditional)
 * 5 create service          meta, bool ephemeralPresent
 * 6 update service          meta, bool ephemeralPresent
 * 7 set cluster check       cluster, healthChecker, bool ephemeralPresent
 * 8 delete service          bool ephemeralPresent
 * 9 update instance         ip, int port, cluster, change, bool ephemeralPresent
 * </pre>
 *
 * An instance is {@code instanceId ("" for the generated one), ip, int port, double weight, bool
 * healthy, bool enabled, bool ephemeral, cluster, metadata, long heartBeatInterval, long
 * heartBeatTimeout, long ipDeleteTimeout}; meta is {@code float protectThreshold, metadata, bool
 * hasSelector [, selector]}; metadata is {@code int n} and n key/value pairs; a change is {@code
 * bool patch, bool hasWeight [double], byte enabled (0 absent, 1 false, 2 true), bool hasMetadata
 * [metadata]}. Strings are {@code int length + UTF-8}.
 */
sealed interface NamingCommand {
  /** The format commands are written in. */
  int FORMAT = 2;

  byte PUT_INSTANCE = 1;
  byte REMOVE_INSTANCE = 2;
  byte PUT_SERVICE = 3;
  byte REMOVE_SERVICE = 4;
  byte CREATE_SERVICE = 5;
  byte UPDATE_SERVICE = 6;
  byte SET_CLUSTER_CHECK = 7;
  byte DELETE_SERVICE = 8;
  byte UPDATE_INSTANCE = 9;
  int MAX_STRING_BYTES = 1024 * 1024;

  ServiceKey service();

  record PutInstance(ServiceKey service, Instance instance) implements NamingCommand {}

  record RemoveInstance(ServiceKey service, String ip, int port, String cluster)
      implements NamingCommand {}

  /** Format 1's service write: replaced the metadata whatever there was. */
  record PutService(ServiceKey service, ServiceMeta meta) implements NamingCommand {}

  /** Format 1's service removal: forgot the metadata whatever there was. */
  record RemoveService(ServiceKey service) implements NamingCommand {}

  /** Creates a service; it applies only if the service does not exist. */
  record CreateService(ServiceKey service, ServiceMeta meta, boolean ephemeralPresent)
      implements NamingCommand {}

  /**
   * Replaces a service's threshold, metadata and selector; applies only if the service exists.
   * Health-check keys of the current metadata that the new one does not mention are kept.
   */
  record UpdateService(ServiceKey service, ServiceMeta meta, boolean ephemeralPresent)
      implements NamingCommand {}

  /** Sets one cluster's health check in the service metadata; applies if the service exists. */
  record SetClusterCheck(
      ServiceKey service, String cluster, String healthChecker, boolean ephemeralPresent)
      implements NamingCommand {}

  /** Deletes a service; applies only if it exists and has no instance. */
  record DeleteService(ServiceKey service, boolean ephemeralPresent) implements NamingCommand {}

  /** Changes a persistent instance; applies only if the service has it. */
  record UpdateInstance(
      ServiceKey service,
      String ip,
      int port,
      String cluster,
      InstanceChange change,
      boolean ephemeralPresent)
      implements NamingCommand {}

  static byte[] encode(NamingCommand command) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      CommandFormat.writeHeader(out, FORMAT);
      if (command instanceof PutInstance put) {
        start(out, PUT_INSTANCE, put.service());
        writeInstance(out, put.instance());
      } else if (command instanceof RemoveInstance remove) {
        start(out, REMOVE_INSTANCE, remove.service());
        writeString(out, remove.ip());
        out.writeInt(remove.port());
        writeString(out, remove.cluster());
      } else if (command instanceof PutService || command instanceof RemoveService) {
        throw new IllegalArgumentException(
            command + " is only read, from logs of format 1; it is never written");
      } else if (command instanceof CreateService create) {
        start(out, CREATE_SERVICE, create.service());
        writeMeta(out, create.meta());
        out.writeBoolean(create.ephemeralPresent());
      } else if (command instanceof UpdateService update) {
        start(out, UPDATE_SERVICE, update.service());
        writeMeta(out, update.meta());
        out.writeBoolean(update.ephemeralPresent());
      } else if (command instanceof SetClusterCheck check) {
        start(out, SET_CLUSTER_CHECK, check.service());
        writeString(out, check.cluster());
        writeString(out, check.healthChecker());
        out.writeBoolean(check.ephemeralPresent());
      } else if (command instanceof DeleteService delete) {
        start(out, DELETE_SERVICE, delete.service());
        out.writeBoolean(delete.ephemeralPresent());
      } else if (command instanceof UpdateInstance update) {
        start(out, UPDATE_INSTANCE, update.service());
        writeString(out, update.ip());
        out.writeInt(update.port());
        writeString(out, update.cluster());
        writeChange(out, update.change());
        out.writeBoolean(update.ephemeralPresent());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  static NamingCommand decode(ByteBuffer buffer) throws IOException {
    CommandFormat.readHeader(buffer, FORMAT);
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
      case CREATE_SERVICE -> new CreateService(service, readMeta(in), in.readBoolean());
      case UPDATE_SERVICE -> new UpdateService(service, readMeta(in), in.readBoolean());
      case SET_CLUSTER_CHECK ->
          new SetClusterCheck(service, readString(in), readString(in), in.readBoolean());
      case DELETE_SERVICE -> new DeleteService(service, in.readBoolean());
      case UPDATE_INSTANCE ->
          new UpdateInstance(
              service,
              readString(in),
              in.readInt(),
              readString(in),
              readChange(in),
              in.readBoolean());
      default -> throw new IOException("unknown naming command " + op);
    };
  }

  private static void start(DataOutputStream out, byte op, ServiceKey service) throws IOException {
    out.writeByte(op);
    writeService(out, service);
  }

  static void writeService(DataOutputStream out, ServiceKey key) throws IOException {
    writeString(out, key.namespace());
    writeString(out, key.group());
    writeString(out, key.name());
  }

  static ServiceKey readService(DataInputStream in) throws IOException {
    // Namespaces and groups repeat across every service: one copy of each.
    return ServiceKey.of(
        InstanceValidator.STRINGS.of(readString(in)),
        InstanceValidator.STRINGS.of(readString(in)),
        readString(in));
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

  /**
   * Reads an instance with its cluster name and metadata shared as a registration's are ({@link
   * InstanceValidator#STRINGS}), so a replicated or replayed instance costs what a registered one
   * does.
   */
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
        InstanceValidator.STRINGS.of(readString(in)),
        InstanceValidator.STRINGS.of(readMap(in)),
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

  private static void writeChange(DataOutputStream out, InstanceChange change) throws IOException {
    out.writeBoolean(change.patch());
    out.writeBoolean(change.weight() != null);
    if (change.weight() != null) {
      out.writeDouble(change.weight());
    }
    out.writeByte(change.enabled() == null ? 0 : change.enabled() ? 2 : 1);
    out.writeBoolean(change.metadata() != null);
    if (change.metadata() != null) {
      writeMap(out, change.metadata());
    }
  }

  private static InstanceChange readChange(DataInputStream in) throws IOException {
    boolean patch = in.readBoolean();
    Double weight = in.readBoolean() ? in.readDouble() : null;
    int enabled = in.readUnsignedByte();
    if (enabled > 2) {
      throw new IOException("enabled flag " + enabled + ": corrupt input");
    }
    Map<String, String> metadata = in.readBoolean() ? readMap(in) : null;
    return new InstanceChange(weight, enabled == 0 ? null : enabled == 2, metadata, patch);
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
