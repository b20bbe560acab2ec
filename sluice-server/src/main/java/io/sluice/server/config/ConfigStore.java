package io.sluice.server.config;

import io.sluice.server.config.ConfigCommand.Publish;
import io.sluice.server.config.ConfigCommand.Remove;
import io.sluice.server.feature.Fault;
import io.sluice.server.replication.ReplicatedState;
import io.sluice.server.replication.UnknownFormatException;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * All configs, in memory, changed only by applying replicated {@link ConfigCommand}s. Whether a
 * publish applies (a compare-and-set against the current md5) is decided here, in apply, from the
 * replicated state alone, so every replica decides the same.
 *
 * <p>Snapshot section, format {@value #SNAPSHOT_FORMAT}: {@code int format, long historySequence,
 * int count}, then per config its key, the formal and beta versions ({@code boolean present}, then
 * {@code long id, content, md5, ConfigMeta, long created, long modified, betaIps}) and {@code int}
 * tagged versions as {@code tag, version}. Format 1 is what every version so far wrote.
 *
 * <p>Concurrency: {@link #apply}, {@link #writeSnapshot} and {@link #loadSnapshot} run on the
 * replicator's single apply thread; readers on any thread see whole {@link ConfigItem}s, swapped
 * atomically in a concurrent map, so a read never waits for a write.
 */
final class ConfigStore implements ReplicatedState {
  static final String NAME = "config";
  private static final Logger log = LoggerFactory.getLogger(ConfigStore.class);
  private static final int SNAPSHOT_FORMAT = 1;

  private final Map<ConfigKey, ConfigItem> items = new ConcurrentHashMap<>();
  private final ConfigListing listing = new ConfigListing();
  private final ConfigHistory history;
  private final Consumer<ConfigChange> changes;
  private final long maxTotalContent;

  /**
   * Characters of content held, every version counted (formal, beta, tags): what the cap bounds.
   * Derived from the items, written only on the apply thread.
   */
  private long totalContent;

  /** Replicated: the id of the last history entry; written only on the apply thread. */
  private long historySequence;

  /**
   * @param changes told after each applied change, on the apply thread: must hand off at once
   */
  ConfigStore(ConfigHistory history, Consumer<ConfigChange> changes) {
    this(history, changes, Long.MAX_VALUE);
  }

  /**
   * @param maxTotalContent the most characters of content all configs may hold together; a publish
   *     that would grow them beyond is refused as a whole ({@link Fault#OVERLOADED}). Every replica
   *     must use the same bound.
   */
  ConfigStore(ConfigHistory history, Consumer<ConfigChange> changes, long maxTotalContent) {
    this.history = history;
    this.changes = changes;
    this.maxTotalContent = maxTotalContent;
  }

  /** Characters of content all configs hold now. */
  long totalContent() {
    return totalContent;
  }

  @Override
  public String name() {
    return NAME;
  }

  ConfigItem get(ConfigKey key) {
    return items.get(key);
  }

  Collection<ConfigItem> all() {
    return items.values();
  }

  /** The configs with a formal version per namespace, in list order, kept as they change. */
  ConfigListing listing() {
    return listing;
  }

  int size() {
    return items.size();
  }

  @Override
  public Object apply(ByteBuffer command, long logIndex) {
    ConfigCommand decoded;
    try {
      decoded = ConfigCommand.decode(command);
    } catch (UnknownFormatException newer) {
      throw newer; // stops replication here: skipping the command would lose it
    } catch (IOException | RuntimeException e) {
      log.error("unreadable config command at log index {}", logIndex, e);
      return new ConfigOutcome.Rejected(Fault.INTERNAL, "unreadable command: " + e.getMessage());
    }
    if (decoded instanceof Publish publish) {
      return publish(publish);
    }
    return remove((Remove) decoded);
  }

  private ConfigOutcome publish(Publish p) {
    ConfigItem current = items.get(p.key());
    ConfigVersion previous = current == null ? null : versionOf(current, p.target(), p.tag());
    if (p.casMd5() != null
        && !p.casMd5().isEmpty()
        && previous != null
        && !p.casMd5().equals(previous.md5())) {
      return new ConfigOutcome.CasConflict(previous.md5());
    }
    long growth = p.content().length() - (previous == null ? 0 : previous.content().length());
    if (growth > 0 && totalContent + growth > maxTotalContent) {
      return new ConfigOutcome.Rejected(
          Fault.OVERLOADED,
          "config storage is full: configs hold "
              + totalContent
              + " of the "
              + maxTotalContent
              + " characters allowed (max-config-bytes); remove or shrink configs first");
    }
    totalContent += growth;
    long id = ++historySequence;
    long created = previous == null ? p.timestampMillis() : previous.createdMillis();
    ConfigVersion version =
        new ConfigVersion(
            id,
            p.content(),
            p.md5(),
            p.meta(),
            created,
            p.timestampMillis(),
            p.target() == ConfigTarget.BETA ? p.betaIps() : Set.of());
    ConfigItem base = current == null ? new ConfigItem(p.key(), null, null, Map.of()) : current;
    ConfigItem updated = with(base, p.target(), p.tag(), version);
    items.put(p.key(), updated);
    listing.changed(current, updated);
    history.append(
        new ConfigHistoryEntry(
            id,
            p.key(),
            previous == null ? 'I' : 'U',
            p.target(),
            p.tag(),
            p.content(),
            p.md5(),
            p.meta(),
            created,
            p.timestampMillis()));
    notify(p.key(), p.target(), version, previous);
    return new ConfigOutcome.Published(version);
  }

  private ConfigOutcome remove(Remove r) {
    ConfigItem current = items.get(r.key());
    ConfigVersion previous = current == null ? null : versionOf(current, r.target(), r.tag());
    if (previous == null) {
      return new ConfigOutcome.Removed(false);
    }
    totalContent -= previous.content().length();
    ConfigItem rest = with(current, r.target(), r.tag(), null);
    if (rest.isEmpty()) {
      items.remove(r.key());
      listing.changed(current, null);
    } else {
      items.put(r.key(), rest);
      listing.changed(current, rest);
    }
    long id = ++historySequence;
    history.append(
        new ConfigHistoryEntry(
            id,
            r.key(),
            'D',
            r.target(),
            r.tag(),
            previous.content(),
            previous.md5(),
            previous.meta().writtenBy(r.srcUser(), r.srcIp()),
            previous.createdMillis(),
            r.timestampMillis()));
    notify(r.key(), r.target(), null, previous);
    return new ConfigOutcome.Removed(true);
  }

  private void notify(ConfigKey key, ConfigTarget target, ConfigVersion now, ConfigVersion before) {
    Set<String> audience = Set.of();
    if (target == ConfigTarget.BETA) {
      Set<String> ips = new TreeSet<>();
      if (now != null) {
        ips.addAll(now.betaIps());
      }
      if (before != null) {
        ips.addAll(before.betaIps());
      }
      audience = Set.copyOf(ips);
      if (audience.isEmpty()) {
        return;
      }
    }
    try {
      changes.accept(new ConfigChange(key, audience));
    } catch (RuntimeException e) {
      log.error("config change listener failed for {}", key, e);
    }
  }

  private static ConfigVersion versionOf(ConfigItem item, ConfigTarget target, String tag) {
    return switch (target) {
      case FORMAL -> item.formal();
      case BETA -> item.beta();
      case TAG -> item.tags().get(tag);
    };
  }

  private static ConfigItem with(
      ConfigItem item, ConfigTarget target, String tag, ConfigVersion v) {
    return switch (target) {
      case FORMAL -> new ConfigItem(item.key(), v, item.beta(), item.tags());
      case BETA -> new ConfigItem(item.key(), item.formal(), v, item.tags());
      case TAG -> {
        Map<String, ConfigVersion> tags = new HashMap<>(item.tags());
        if (v == null) {
          tags.remove(tag);
        } else {
          tags.put(tag, v);
        }
        yield new ConfigItem(item.key(), item.formal(), item.beta(), tags);
      }
    };
  }

  @Override
  public void writeSnapshot(DataOutputStream out) throws IOException {
    // History entries below this snapshot must be durable before the log up to it is purged.
    history.sync();
    out.writeInt(SNAPSHOT_FORMAT);
    out.writeLong(historySequence);
    Collection<ConfigItem> all = items.values();
    out.writeInt(all.size());
    for (ConfigItem item : all) {
      ConfigCodec.writeKey(out, item.key());
      writeVersion(out, item.formal());
      writeVersion(out, item.beta());
      out.writeInt(item.tags().size());
      for (Map.Entry<String, ConfigVersion> tag : item.tags().entrySet()) {
        ConfigCodec.writeString(out, tag.getKey());
        writeVersion(out, tag.getValue());
      }
    }
  }

  @Override
  public void loadSnapshot(DataInputStream in) throws IOException {
    int format = in.readInt();
    if (format != SNAPSHOT_FORMAT) {
      throw new IOException("unknown config snapshot format " + format);
    }
    long sequence = in.readLong();
    int count = in.readInt();
    Map<ConfigKey, ConfigItem> loaded = new HashMap<>(Math.max(16, count * 2));
    for (int i = 0; i < count; i++) {
      ConfigKey key = ConfigCodec.readKey(in);
      ConfigVersion formal = readVersion(in);
      ConfigVersion beta = readVersion(in);
      int tagCount = in.readInt();
      Map<String, ConfigVersion> tags = new HashMap<>();
      for (int t = 0; t < tagCount; t++) {
        tags.put(ConfigCodec.readString(in), readVersion(in));
      }
      loaded.put(key, new ConfigItem(key, formal, beta, tags));
    }
    items.clear();
    items.putAll(loaded);
    listing.clear();
    for (ConfigItem item : loaded.values()) {
      listing.changed(null, item);
    }
    historySequence = sequence;
    long total = 0;
    for (ConfigItem item : loaded.values()) {
      total += contentOf(item.formal()) + contentOf(item.beta());
      for (ConfigVersion tagged : item.tags().values()) {
        total += contentOf(tagged);
      }
    }
    totalContent = total;
  }

  private static long contentOf(ConfigVersion version) {
    return version == null ? 0 : version.content().length();
  }

  private static void writeVersion(DataOutputStream out, ConfigVersion v) throws IOException {
    out.writeBoolean(v != null);
    if (v == null) {
      return;
    }
    out.writeLong(v.id());
    ConfigCodec.writeString(out, v.content());
    ConfigCodec.writeString(out, v.md5());
    ConfigCodec.writeMeta(out, v.meta());
    out.writeLong(v.createdMillis());
    out.writeLong(v.modifiedMillis());
    ConfigCodec.writeIps(out, v.betaIps());
  }

  private static ConfigVersion readVersion(DataInputStream in) throws IOException {
    if (!in.readBoolean()) {
      return null;
    }
    return new ConfigVersion(
        in.readLong(),
        ConfigCodec.readString(in),
        ConfigCodec.readString(in),
        ConfigCodec.readMeta(in),
        in.readLong(),
        in.readLong(),
        ConfigCodec.readIps(in));
  }
}
