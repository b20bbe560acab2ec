package io.sluice.server.config;

import io.sluice.server.replication.CommandFormat;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Set;

/**
 * A change to the config store, as it travels through the replicated log. Everything apply needs is
 * inside, including the time and the md5 (computed once, by the node that accepted the write), so
 * every replica applies it to the same result.
 *
 * <p>Formats ({@link CommandFormat}): {@value #FORMAT} is written, 1 and 2 are read. Both lay a
 * command out the same way after the header; format 1 has no header.
 *
 * <pre>
 * byte op              1 publish, 2 remove
 * key                  namespace, group, dataId (strings)
 * byte target          ConfigTarget code
 * string tag
 * publish:  string content, string md5, ConfigMeta, int n + n strings betaIps, string casMd5,
 *           long timestampMillis
 * remove:   string srcUser, string srcIp, long timestampMillis
 * </pre>
 *
 * Strings are {@code int length + UTF-8}, -1 for null ({@code LengthPrefixedString}).
 */
sealed interface ConfigCommand {
  /** The format commands are written in. */
  int FORMAT = 2;

  byte PUBLISH = 1;
  byte REMOVE = 2;

  ConfigKey key();

  /**
   * Publishes a version.
   *
   * @param casMd5 non-empty for compare-and-set: the publish applies only if the current md5 of the
   *     targeted version equals it, or the version does not exist (as Nacos does)
   */
  record Publish(
      ConfigKey key,
      ConfigTarget target,
      String tag,
      String content,
      String md5,
      ConfigMeta meta,
      Set<String> betaIps,
      String casMd5,
      long timestampMillis)
      implements ConfigCommand {}

  record Remove(
      ConfigKey key,
      ConfigTarget target,
      String tag,
      String srcUser,
      String srcIp,
      long timestampMillis)
      implements ConfigCommand {}

  static byte[] encode(ConfigCommand command) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      CommandFormat.writeHeader(out, FORMAT);
      if (command instanceof Publish p) {
        out.writeByte(PUBLISH);
        ConfigCodec.writeKey(out, p.key());
        ConfigCodec.writeTarget(out, p.target());
        ConfigCodec.writeString(out, p.tag());
        ConfigCodec.writeString(out, p.content());
        ConfigCodec.writeString(out, p.md5());
        ConfigCodec.writeMeta(out, p.meta());
        ConfigCodec.writeIps(out, p.betaIps());
        ConfigCodec.writeString(out, p.casMd5());
        out.writeLong(p.timestampMillis());
      } else if (command instanceof Remove r) {
        out.writeByte(REMOVE);
        ConfigCodec.writeKey(out, r.key());
        ConfigCodec.writeTarget(out, r.target());
        ConfigCodec.writeString(out, r.tag());
        ConfigCodec.writeString(out, r.srcUser());
        ConfigCodec.writeString(out, r.srcIp());
        out.writeLong(r.timestampMillis());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  static ConfigCommand decode(ByteBuffer buffer) throws IOException {
    CommandFormat.readHeader(buffer, FORMAT);
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
    byte op = in.readByte();
    return switch (op) {
      case PUBLISH ->
          new Publish(
              ConfigCodec.readKey(in),
              ConfigCodec.readTarget(in),
              ConfigCodec.readString(in),
              ConfigCodec.readString(in),
              ConfigCodec.readString(in),
              ConfigCodec.readMeta(in),
              ConfigCodec.readIps(in),
              ConfigCodec.readString(in),
              in.readLong());
      case REMOVE ->
          new Remove(
              ConfigCodec.readKey(in),
              ConfigCodec.readTarget(in),
              ConfigCodec.readString(in),
              ConfigCodec.readString(in),
              ConfigCodec.readString(in),
              in.readLong());
      default -> throw new IOException("unknown config command " + op);
    };
  }
}
