package io.sluice.server.config;

import io.sluice.server.replication.LengthPrefixedString;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Set;
import java.util.TreeSet;

/**
 * The one encoding of the config center's values in commands, snapshots and history: keys,
 * metadata, beta IP sets and targets. Each value is written in one place here, in one order, so a
 * command, a snapshot section and a history record cannot disagree about it.
 *
 * <p>The order of {@link ConfigMeta}'s fields is the order format 1 wrote them in (type, appName,
 * desc, configTags, encryptedDataKey, srcUser, srcIp, use, effect, schema), which is why commands
 * and snapshots of format 1 read through the same code.
 */
final class ConfigCodec {
  /** Far above any content the server accepts; a larger length means corrupt input. */
  static final int MAX_STRING_BYTES = 256 * 1024 * 1024;

  /** Far above the server's own bound on beta IPs; a larger count means corrupt input. */
  private static final int MAX_BETA_IPS = 100_000;

  private ConfigCodec() {}

  static void writeKey(DataOutput out, ConfigKey key) throws IOException {
    writeString(out, key.namespace());
    writeString(out, key.group());
    writeString(out, key.dataId());
  }

  static ConfigKey readKey(DataInput in) throws IOException {
    String namespace = readString(in);
    String group = readString(in);
    String dataId = readString(in);
    if (group == null || dataId == null) {
      throw new IOException("config key without group or data id: corrupt input");
    }
    return ConfigKey.of(namespace, group, dataId);
  }

  static void writeMeta(DataOutput out, ConfigMeta meta) throws IOException {
    writeString(out, meta.type());
    writeString(out, meta.appName());
    writeString(out, meta.desc());
    writeString(out, meta.configTags());
    writeString(out, meta.encryptedDataKey());
    writeString(out, meta.srcUser());
    writeString(out, meta.srcIp());
    writeString(out, meta.use());
    writeString(out, meta.effect());
    writeString(out, meta.schema());
  }

  static ConfigMeta readMeta(DataInput in) throws IOException {
    return ConfigMeta.builder()
        .type(readString(in))
        .appName(readString(in))
        .desc(readString(in))
        .configTags(readString(in))
        .encryptedDataKey(readString(in))
        .srcUser(readString(in))
        .srcIp(readString(in))
        .use(readString(in))
        .effect(readString(in))
        .schema(readString(in))
        .build();
  }

  static void writeIps(DataOutput out, Set<String> ips) throws IOException {
    out.writeInt(ips.size());
    for (String ip : ips) {
      writeString(out, ip);
    }
  }

  static Set<String> readIps(DataInput in) throws IOException {
    int count = in.readInt();
    if (count < 0 || count > MAX_BETA_IPS) {
      throw new IOException(count + " beta IPs: corrupt input");
    }
    Set<String> ips = new TreeSet<>();
    for (int i = 0; i < count; i++) {
      ips.add(readString(in));
    }
    return Set.copyOf(ips);
  }

  static void writeTarget(DataOutput out, ConfigTarget target) throws IOException {
    out.writeByte(target.code());
  }

  static ConfigTarget readTarget(DataInput in) throws IOException {
    int code = in.readUnsignedByte();
    ConfigTarget target = ConfigTarget.ofCode(code);
    if (target == null) {
      throw new IOException("unknown config target " + code);
    }
    return target;
  }

  static void writeString(DataOutput out, String s) throws IOException {
    LengthPrefixedString.write(out, s);
  }

  static String readString(DataInput in) throws IOException {
    return LengthPrefixedString.read(in, MAX_STRING_BYTES);
  }
}
