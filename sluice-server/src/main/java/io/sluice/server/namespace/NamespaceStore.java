package io.sluice.server.namespace;

import io.sluice.server.feature.Fault;
import io.sluice.server.namespace.NamespaceCommand.Create;
import io.sluice.server.namespace.NamespaceCommand.Delete;
import io.sluice.server.namespace.NamespaceCommand.Update;
import io.sluice.server.replication.ReplicatedState;
import io.sluice.server.replication.UnknownFormatException;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The namespaces operators created, in creation order, changed only by applying replicated {@link
 * NamespaceCommand}s. There are few of them (at most {@value #MAX_NAMESPACES}), so each change
 * copies the map.
 *
 * <p>Concurrency: {@link #apply}, {@link #writeSnapshot} and {@link #loadSnapshot} run on the
 * replicator's single apply thread; readers on any thread read an immutable map published through a
 * volatile field.
 *
 * <p>Snapshot format 1: {@code int format, int count}, then per namespace in creation order {@code
 * id, name, description} as {@code int length + UTF-8} ({@code -1} for null) and {@code long
 * createdMillis}.
 */
final class NamespaceStore implements ReplicatedState {
  static final String NAME = "namespace";
  static final int MAX_NAMESPACES = 10_000;
  private static final int SNAPSHOT_FORMAT = 1;
  private static final Logger log = LoggerFactory.getLogger(NamespaceStore.class);

  private final int maxNamespaces;
  private volatile Map<String, Namespace> byId = Map.of();

  NamespaceStore() {
    this(MAX_NAMESPACES);
  }

  /** A store that holds at most {@code maxNamespaces}; every replica must use the same bound. */
  NamespaceStore(int maxNamespaces) {
    this.maxNamespaces = maxNamespaces;
  }

  @Override
  public String name() {
    return NAME;
  }

  /** Every stored namespace, in creation order (the public one is not stored). */
  Collection<Namespace> all() {
    return byId.values();
  }

  Namespace get(String id) {
    return id == null ? null : byId.get(id);
  }

  int size() {
    return byId.size();
  }

  @Override
  public Object apply(ByteBuffer command, long logIndex) {
    NamespaceCommand decoded;
    try {
      decoded = NamespaceCommand.decode(command);
    } catch (UnknownFormatException newer) {
      throw newer; // stops replication here: skipping the command would lose it
    } catch (IOException | RuntimeException e) {
      log.error("unreadable namespace command at log index {}", logIndex, e);
      return new NamespaceOutcome.Rejected(Fault.INTERNAL, "unreadable command: " + e.getMessage());
    }
    Map<String, Namespace> current = byId;
    if (decoded instanceof Create create) {
      if (current.containsKey(create.id())) {
        return new NamespaceOutcome.AlreadyExists(create.id());
      }
      if (current.size() >= maxNamespaces) {
        return new NamespaceOutcome.Rejected(
            Fault.INVALID, "there are " + maxNamespaces + " namespaces already; delete one first");
      }
      Namespace created =
          new Namespace(create.id(), create.name(), create.description(), create.createdMillis());
      publish(current, created.id(), created);
      return new NamespaceOutcome.Created(created);
    }
    if (decoded instanceof Update update) {
      Namespace existing = current.get(update.id());
      if (existing == null) {
        return new NamespaceOutcome.NotFound(update.id());
      }
      Namespace updated =
          new Namespace(
              existing.id(), update.name(), update.description(), existing.createdMillis());
      publish(current, updated.id(), updated);
      return new NamespaceOutcome.Updated(updated);
    }
    Delete delete = (Delete) decoded;
    if (!current.containsKey(delete.id())) {
      return new NamespaceOutcome.Deleted(false);
    }
    publish(current, delete.id(), null);
    return new NamespaceOutcome.Deleted(true);
  }

  /** Replaces (or removes, when null) one entry, keeping creation order. */
  private void publish(Map<String, Namespace> current, String id, Namespace namespace) {
    LinkedHashMap<String, Namespace> next = new LinkedHashMap<>(current);
    if (namespace == null) {
      next.remove(id);
    } else {
      next.put(id, namespace);
    }
    byId = Collections.unmodifiableMap(next);
  }

  @Override
  public void writeSnapshot(DataOutputStream out) throws IOException {
    List<Namespace> all = List.copyOf(byId.values());
    out.writeInt(SNAPSHOT_FORMAT);
    out.writeInt(all.size());
    for (Namespace namespace : all) {
      NamespaceCommand.writeString(out, namespace.id());
      NamespaceCommand.writeString(out, namespace.name());
      NamespaceCommand.writeString(out, namespace.description());
      out.writeLong(namespace.createdMillis());
    }
  }

  @Override
  public void loadSnapshot(DataInputStream in) throws IOException {
    int format = in.readInt();
    if (format != SNAPSHOT_FORMAT) {
      throw new IOException("unknown namespace snapshot format " + format);
    }
    int count = in.readInt();
    if (count < 0 || count > Math.max(maxNamespaces, MAX_NAMESPACES)) {
      throw new IOException("namespace snapshot claims " + count + " namespaces");
    }
    LinkedHashMap<String, Namespace> loaded = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      String id = NamespaceCommand.readString(in);
      if (id == null) {
        throw new IOException("namespace snapshot has a namespace without an id");
      }
      String name = NamespaceCommand.readString(in);
      String description = NamespaceCommand.readString(in);
      long created = in.readLong();
      loaded.put(id, new Namespace(id, name, description, created));
    }
    byId = Collections.unmodifiableMap(loaded);
  }
}
