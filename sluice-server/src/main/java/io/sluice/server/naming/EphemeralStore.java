package io.sluice.server.naming;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.replication.CommandFormat;
import io.sluice.server.replication.LengthPrefixedString;
import io.sluice.server.replication.PreviewedState;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ephemeral instances of every node of a cluster, replicated through the log so that every node
 * lists them: each node publishes what its own connections and heartbeating clients own (through
 * {@link EphemeralSync}), and every node applies what the others publish into its registry under a
 * remote owner id, {@code @node/incarnation/owner}.
 *
 * <p>An <em>incarnation</em> is one run of a node (a random id chosen at start), so that what a
 * node owned before a crash can be told from what it owns now: a node drops its earlier
 * incarnations once it is up, and the leader drops every incarnation of a node it has not heard
 * from for the owner timeout. The node's own current incarnation is not applied to its registry:
 * there it is local state already, and this copy is only what the others see (and what a snapshot
 * holds).
 *
 * <p>Commands (format {@value #FORMAT}, {@link CommandFormat} header): {@code PUBLISH node
 * incarnation owner service instances} replaces what one owner of one incarnation has in one
 * service (none: removed); {@code DROP node keepIncarnation} removes every incarnation of a node
 * but the one named ("" keeps none). Snapshot section, format 1: {@code int format, int count},
 * then per entry node, incarnation, owner, service, instances.
 *
 * <p><b>Previews.</b> Another node's publication is listed as soon as its batch is in this node's
 * log ({@link #preview}), not when it commits: a subscriber here sees it without waiting for the
 * leader's and a follower's fsync and the commit round (the owner acknowledged its client before
 * any of that anyway). What the registry lists for an entry is its newest preview if there is one,
 * else its committed list ({@link #entries}); the commit of that publication, or of a newer one,
 * replaces the preview. A committed publication of the same proposer and an older batch leaves a
 * newer preview listed (so the list never steps back to an older one), and any other replaces it. A
 * preview whose batch never commits (a new leader truncated it) is replaced by the owner's next
 * publication (its reconciliation republishes what the committed copy lacks within {@link
 * EphemeralSync#RECONCILE_MILLIS}), cleared by a drop of its node, and withdrawn after {@link
 * #PREVIEW_EXPIRY_MILLIS} at the latest. Previews never reach {@link #entries}, snapshots or
 * outcomes, so every replica's committed state stays identical.
 *
 * <p><b>One copy.</b> Every node holds every instance, so a replicated instance must cost no more
 * than a registered one. A publication is read once per node: its preview's reading is handed to
 * its apply with the log entry, and the committed copy is the very list the registry lists (for
 * this node's own entries, the list its clients registered), whichever way it arrived. Names are
 * shared: node, incarnation and owner interned, the registry's service key, cluster names and
 * metadata from the registrations' pool ({@link NamingCommand#readInstance}).
 *
 * <p>Concurrency: apply and snapshots run on the apply thread, previews on Ratis's threads, expiry
 * on the scheduler; each changes {@link #previews} and the registry's remote lists only while
 * holding {@link #previews}, so a preview and the commit of the same entry cannot interleave.
 * {@link #entries} is a concurrent map so {@link EphemeralSync} may compare it with the registry
 * from another thread.
 */
final class EphemeralStore implements PreviewedState {
  static final String NAME = "ephemeral";
  static final int FORMAT = 2;
  private static final int SNAPSHOT_FORMAT = 1;
  private static final byte PUBLISH = 1;
  private static final byte DROP = 2;
  private static final int MAX_STRING_BYTES = 1 << 20;
  private static final Logger log = LoggerFactory.getLogger(EphemeralStore.class);

  /** How long a preview may wait for its commit before it is withdrawn: past any election. */
  static final long PREVIEW_EXPIRY_MILLIS = 30_000;

  /** A publication listed before it committed: from which batch, and since when. */
  private record Preview(
      long proposerId, long sequence, List<Instance> instances, long previewedAtNanos) {}

  /**
   * One owner's instances in one service, of one incarnation of one node. Read from the log with
   * its strings interned and the registry's own service key, so the many entries of one owner and
   * the registry share one copy of each name.
   */
  static final class Entry {
    private final String node;
    private final String incarnation;
    private final String owner;
    private final ServiceKey service;

    /**
     * {@link #remoteOwner()}, made on first use: a publication's preview and apply each need it,
     * and a node's own entries never do. Racy but safe: every thread makes the same interned
     * string.
     */
    private String remoteOwner;

    Entry(String node, String incarnation, String owner, ServiceKey service) {
      this.node = node;
      this.incarnation = incarnation;
      this.owner = owner;
      this.service = service;
    }

    String node() {
      return node;
    }

    String incarnation() {
      return incarnation;
    }

    String owner() {
      return owner;
    }

    ServiceKey service() {
      return service;
    }

    /** The owner the registry lists this entry under; interned, as every service keeps it. */
    String remoteOwner() {
      String made = remoteOwner;
      if (made == null) {
        made = ("@" + node + "/" + incarnation + "/" + owner).intern();
        remoteOwner = made;
      }
      return made;
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Entry that
          && node.equals(that.node)
          && incarnation.equals(that.incarnation)
          && owner.equals(that.owner)
          && service.equals(that.service);
    }

    @Override
    public int hashCode() {
      // By hand: Objects.hash would allocate on every lookup of the replicated copy.
      return ((node.hashCode() * 31 + incarnation.hashCode()) * 31 + owner.hashCode()) * 31
          + service.hashCode();
    }

    @Override
    public String toString() {
      return "Entry[node=%s, incarnation=%s, owner=%s, service=%s]"
          .formatted(node, incarnation, owner, service);
    }
  }

  /** A publication as read from its command: what a preview hands to the apply of its entry. */
  private record Publication(Entry entry, List<Instance> instances) {}

  private final ServiceRegistry registry;
  private final ServerClock clock;
  private final String selfNode;
  private final String selfIncarnation;
  private final Map<Entry, List<Instance>> entries = new ConcurrentHashMap<>();

  /** Listed, not yet committed; guarded by itself (see the class comment). */
  private final Map<Entry, Preview> previews = new HashMap<>();

  EphemeralStore(
      ServiceRegistry registry, ServerClock clock, String selfNode, String selfIncarnation) {
    this.registry = registry;
    this.clock = clock;
    this.selfNode = selfNode;
    this.selfIncarnation = selfIncarnation;
  }

  @Override
  public String name() {
    return NAME;
  }

  static byte[] publish(
      String node, String incarnation, String owner, ServiceKey service, List<Instance> instances) {
    return encode(
        out -> {
          out.writeByte(PUBLISH);
          LengthPrefixedString.write(out, node);
          LengthPrefixedString.write(out, incarnation);
          LengthPrefixedString.write(out, owner);
          NamingCommand.writeService(out, service);
          out.writeInt(instances.size());
          for (Instance instance : instances) {
            NamingCommand.writeInstance(out, instance);
          }
        });
  }

  static byte[] drop(String node, String keepIncarnation) {
    return encode(
        out -> {
          out.writeByte(DROP);
          LengthPrefixedString.write(out, node);
          LengthPrefixedString.write(out, keepIncarnation);
        });
  }

  /**
   * Lists another node's publication at once and returns it as read, so that its apply keeps these
   * same instances (one copy on this node, not one per reading).
   */
  @Override
  public Object preview(ByteBuffer command, long proposerId, long sequence) {
    try {
      DataInputStream in = open(command);
      if (in.readByte() != PUBLISH) {
        return null; // drops wait for their commit
      }
      Entry entry = readEntry(in);
      if (isSelf(entry)) {
        return null; // its apply shares the registry's own instances instead
      }
      List<Instance> instances = readInstances(in);
      synchronized (previews) {
        Preview shown = previews.get(entry);
        if (shown == null || shown.proposerId() != proposerId || shown.sequence() <= sequence) {
          previews.put(entry, new Preview(proposerId, sequence, instances, clock.nanoTime()));
          list(entry, instances);
        }
      }
      return new Publication(entry, instances);
    } catch (IOException | RuntimeException e) {
      // Not listed early; its apply decides (and reports) once it commits.
      log.debug("ephemeral command not previewed: {}", e.toString());
      return null;
    }
  }

  @Override
  public Object apply(ByteBuffer command, long logIndex) {
    return apply(command, logIndex, 0, 0, null);
  }

  @Override
  public Object apply(
      ByteBuffer command, long logIndex, long proposerId, long sequence, Object previewed) {
    try {
      Publication publication = previewed instanceof Publication p ? p : null;
      DataInputStream in = publication == null ? open(command) : null;
      byte op = publication == null ? in.readByte() : PUBLISH;
      if (op == PUBLISH) {
        if (publication == null) {
          publication = new Publication(readEntry(in), readInstances(in));
        }
        Entry entry = publication.entry();
        synchronized (previews) {
          List<Instance> instances = sharedWithRegistry(entry, publication.instances());
          Preview shown = previews.get(entry);
          if (shown != null && shown.proposerId() == proposerId && shown.sequence() > sequence) {
            store(entry, instances); // a newer publication is listed already; it commits next
          } else {
            previews.remove(entry);
            put(entry, instances);
          }
        }
      } else if (op == DROP) {
        String node = LengthPrefixedString.read(in, MAX_STRING_BYTES);
        String keep = LengthPrefixedString.read(in, MAX_STRING_BYTES);
        synchronized (previews) {
          for (Iterator<Entry> it = previews.keySet().iterator(); it.hasNext(); ) {
            Entry entry = it.next();
            if (entry.node().equals(node) && !entry.incarnation().equals(keep)) {
              it.remove();
              list(entry, entries.getOrDefault(entry, List.of()));
            }
          }
          for (Entry entry : List.copyOf(entries.keySet())) {
            if (entry.node().equals(node) && !entry.incarnation().equals(keep)) {
              put(entry, List.of());
            }
          }
        }
      } else {
        log.warn("ephemeral command with unknown op {} at log index {}; skipped", op, logIndex);
      }
      return NamingOutcome.APPLIED;
    } catch (IOException e) {
      log.warn("unreadable ephemeral command at log index {}; skipped: {}", logIndex, e.toString());
      return NamingOutcome.APPLIED;
    }
  }

  /**
   * Withdraws previews listed for longer than {@link #PREVIEW_EXPIRY_MILLIS} (their batch never
   * committed): the registry lists the committed copy of their entries again.
   */
  void withdrawExpiredPreviews() {
    long now = clock.nanoTime();
    long expiry = TimeUnit.MILLISECONDS.toNanos(PREVIEW_EXPIRY_MILLIS);
    synchronized (previews) {
      for (Iterator<Map.Entry<Entry, Preview>> it = previews.entrySet().iterator();
          it.hasNext(); ) {
        Map.Entry<Entry, Preview> shown = it.next();
        if (now - shown.getValue().previewedAtNanos() >= expiry) {
          it.remove();
          log.info(
              "withdrew the ephemeral instances of {} listed before a commit that never came",
              shown.getKey());
          list(shown.getKey(), entries.getOrDefault(shown.getKey(), List.of()));
        }
      }
    }
  }

  /** Entries listed from a preview, not (yet) from their commit. */
  int previewCount() {
    synchronized (previews) {
      return previews.size();
    }
  }

  /** What this node's current incarnation has in the replicated copy. */
  Map<Entry, List<Instance>> entries() {
    return entries;
  }

  boolean isSelf(Entry entry) {
    return entry.node().equals(selfNode) && entry.incarnation().equals(selfIncarnation);
  }

  @Override
  public void writeSnapshot(DataOutputStream out) throws IOException {
    out.writeInt(SNAPSHOT_FORMAT);
    List<Map.Entry<Entry, List<Instance>>> all = new ArrayList<>(entries.entrySet());
    out.writeInt(all.size());
    for (Map.Entry<Entry, List<Instance>> e : all) {
      Entry entry = e.getKey();
      LengthPrefixedString.write(out, entry.node());
      LengthPrefixedString.write(out, entry.incarnation());
      LengthPrefixedString.write(out, entry.owner());
      NamingCommand.writeService(out, entry.service());
      out.writeInt(e.getValue().size());
      for (Instance instance : e.getValue()) {
        NamingCommand.writeInstance(out, instance);
      }
    }
  }

  @Override
  public void loadSnapshot(DataInputStream in) throws IOException {
    int format = in.readInt();
    if (format != SNAPSHOT_FORMAT) {
      throw new IOException(
          "ephemeral snapshot format " + format + " is not one this server reads");
    }
    synchronized (previews) {
      for (Entry entry : previews.keySet()) {
        list(entry, List.of());
      }
      previews.clear();
      for (Entry entry : List.copyOf(entries.keySet())) {
        put(entry, List.of());
      }
      int count = in.readInt();
      for (int i = 0; i < count; i++) {
        put(readEntry(in), readInstances(in));
      }
    }
  }

  /**
   * What the registry lists for the entry if it equals {@code instances}, else {@code instances}:
   * so the committed copy is the very list the registry holds, one copy of each instance, whether
   * the registry has it from this node's own clients (the entry is this node's), from the preview
   * (when the apply was not handed its reading) or from an earlier identical publication. Callers
   * hold {@link #previews}.
   */
  private List<Instance> sharedWithRegistry(Entry entry, List<Instance> instances) {
    String owner = isSelf(entry) ? entry.owner() : entry.remoteOwner();
    List<Instance> listed = registry.publishedBy(owner, entry.service());
    return listed.equals(instances) ? listed : instances;
  }

  /** Replaces an entry and mirrors it into the registry. Callers hold {@link #previews}. */
  private void put(Entry entry, List<Instance> instances) {
    store(entry, instances);
    list(entry, instances);
  }

  private void store(Entry entry, List<Instance> instances) {
    if (instances.isEmpty()) {
      entries.remove(entry);
    } else {
      entries.put(entry, instances);
    }
  }

  /**
   * What the registry lists for an entry, unless it is this node's own (local state here;
   * EphemeralSync keeps the copy in step). Callers hold {@link #previews}.
   */
  private void list(Entry entry, List<Instance> instances) {
    if (isSelf(entry)) {
      return;
    }
    try {
      registry.publishAll(entry.remoteOwner(), entry.service(), instances);
    } catch (NamingException e) {
      // The service took persistent instances on this node first: the same refusal as the owner
      // would have met here, decided from replicated state alone.
      log.debug("ephemeral instances of {} not listed: {}", entry, e.getMessage());
    }
  }

  private static DataInputStream open(ByteBuffer command) throws IOException {
    ByteBuffer copy = command.duplicate();
    CommandFormat.readHeader(copy, FORMAT);
    byte[] bytes = new byte[copy.remaining()];
    copy.get(bytes);
    return new DataInputStream(new ByteArrayInputStream(bytes));
  }

  /**
   * Reads an entry's names, interned: a node, an incarnation and an owner recur in every entry they
   * publish, and the JVM's string table forgets them once no entry holds them. The service key is
   * the registry's when it has the service.
   */
  private Entry readEntry(DataInputStream in) throws IOException {
    return new Entry(
        readName(in),
        readName(in),
        readName(in),
        registry.sharedKey(NamingCommand.readService(in)));
  }

  private static String readName(DataInputStream in) throws IOException {
    String name = LengthPrefixedString.read(in, MAX_STRING_BYTES);
    if (name == null) {
      throw new IOException("missing name: corrupt input");
    }
    return name.intern();
  }

  private static List<Instance> readInstances(DataInputStream in) throws IOException {
    int count = in.readInt();
    if (count < 0 || count > 100_000) {
      throw new IOException("bad instance count " + count);
    }
    List<Instance> instances = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      instances.add(NamingCommand.readInstance(in));
    }
    return List.copyOf(instances);
  }

  private interface Writer {
    void write(DataOutputStream out) throws IOException;
  }

  private static byte[] encode(Writer writer) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      CommandFormat.writeHeader(out, FORMAT);
      writer.write(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }
}
