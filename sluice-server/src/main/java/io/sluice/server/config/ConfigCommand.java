package io.sluice.server.config;

import io.sluice.server.replication.LengthPrefixedString;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.TreeSet;

/**
 * A change to the config store, as it travels through the replicated log. Everything apply needs is
 * inside, including the time and the md5 (computed once, by the node that accepted the write), so
 * every replica applies it to the same result.
 */
public sealed interface ConfigCommand {
  /** Far above any content the server accepts; a larger length means corrupt input. */
  int MAX_STRING_BYTES = 256 * 1024 * 1024;

  byte PUBLISH = 1;
  byte REMOVE = 2;

  ConfigKey key();

  /** What a publish or remove targets: the formal version, the beta version, or one tag. */
  enum Target {
    FORMAL,
    BETA,
    TAG
  }

  /**
   * Publishes a version.
   *
   * @param casMd5 non-empty for compare-and-set: the publish applies only if the current md5 of the
   *     targeted version equals it, or the version does not exist (as Nacos does)
   */
  record Publish(
      ConfigKey key,
      Target target,
      String tag,
      String content,
      String md5,
      String type,
      String appName,
      String desc,
      String configTags,
      String encryptedDataKey,
      String srcUser,
      String srcIp,
      String use,
      String effect,
      String schema,
      Set<String> betaIps,
      String casMd5,
      long timestampMillis)
      implements ConfigCommand {

    /** This publish with the md5 and time the accepting node decided. */
    public Publish stamped(String md5, long timestampMillis) {
      return new Publish(
          key,
          target,
          tag,
          content,
          md5,
          type,
          appName,
          desc,
          configTags,
          encryptedDataKey,
          srcUser,
          srcIp,
          use,
          effect,
          schema,
          betaIps,
          casMd5,
          timestampMillis);
    }
  }

  record Remove(
      ConfigKey key, Target target, String tag, String srcUser, String srcIp, long timestampMillis)
      implements ConfigCommand {}

  static byte[] encode(ConfigCommand command) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      if (command instanceof Publish p) {
        out.writeByte(PUBLISH);
        writeKey(out, p.key());
        out.writeByte(p.target().ordinal());
        writeString(out, p.tag());
        writeString(out, p.content());
        writeString(out, p.md5());
        writeString(out, p.type());
        writeString(out, p.appName());
        writeString(out, p.desc());
        writeString(out, p.configTags());
        writeString(out, p.encryptedDataKey());
        writeString(out, p.srcUser());
        writeString(out, p.srcIp());
        writeString(out, p.use());
        writeString(out, p.effect());
        writeString(out, p.schema());
        out.writeInt(p.betaIps().size());
        for (String ip : p.betaIps()) {
          writeString(out, ip);
        }
        writeString(out, p.casMd5());
        out.writeLong(p.timestampMillis());
      } else if (command instanceof Remove r) {
        out.writeByte(REMOVE);
        writeKey(out, r.key());
        out.writeByte(r.target().ordinal());
        writeString(out, r.tag());
        writeString(out, r.srcUser());
        writeString(out, r.srcIp());
        out.writeLong(r.timestampMillis());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  static ConfigCommand decode(ByteBuffer buffer) throws IOException {
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(bytes));
    byte op = in.readByte();
    switch (op) {
      case PUBLISH -> {
        ConfigKey key = readKey(in);
        Target target = Target.values()[in.readByte()];
        String tag = readString(in);
        String content = readString(in);
        String md5 = readString(in);
        String type = readString(in);
        String appName = readString(in);
        String desc = readString(in);
        String configTags = readString(in);
        String encryptedDataKey = readString(in);
        String srcUser = readString(in);
        String srcIp = readString(in);
        String use = readString(in);
        String effect = readString(in);
        String schema = readString(in);
        int betaCount = in.readInt();
        Set<String> betaIps = new TreeSet<>();
        for (int i = 0; i < betaCount; i++) {
          betaIps.add(readString(in));
        }
        String casMd5 = readString(in);
        long timestamp = in.readLong();
        return new Publish(
            key,
            target,
            tag,
            content,
            md5,
            type,
            appName,
            desc,
            configTags,
            encryptedDataKey,
            srcUser,
            srcIp,
            use,
            effect,
            schema,
            Set.copyOf(betaIps),
            casMd5,
            timestamp);
      }
      case REMOVE -> {
        ConfigKey key = readKey(in);
        Target target = Target.values()[in.readByte()];
        String tag = readString(in);
        String srcUser = readString(in);
        String srcIp = readString(in);
        long timestamp = in.readLong();
        return new Remove(key, target, tag, srcUser, srcIp, timestamp);
      }
      default -> throw new IOException("unknown config command " + op);
    }
  }

  static void writeKey(DataOutputStream out, ConfigKey key) throws IOException {
    writeString(out, key.namespace());
    writeString(out, key.group());
    writeString(out, key.dataId());
  }

  static ConfigKey readKey(DataInputStream in) throws IOException {
    return ConfigKey.of(readString(in), readString(in), readString(in));
  }

  static void writeString(DataOutputStream out, String s) throws IOException {
    LengthPrefixedString.write(out, s);
  }

  static String readString(DataInputStream in) throws IOException {
    return LengthPrefixedString.read(in, MAX_STRING_BYTES);
  }
}
