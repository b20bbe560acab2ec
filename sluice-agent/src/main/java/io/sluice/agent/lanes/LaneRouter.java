package io.sluice.agent.lanes;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Picks the instances a call may go to, by lane: a request tagged {@code gray} goes to the target's
 * {@code gray} instances when it has any, else to its base (untagged) instances; an untagged
 * request only ever goes to base instances. Works on any instance type through {@link
 * InstanceTags}, so each transport (Spring Cloud LoadBalancer, Dubbo) only says how to read an
 * instance's tag.
 *
 * <p>Decisions are precomputed: the first call with a given instance list (by identity: load
 * balancers hand out the same list object until the membership changes) splits it into its base
 * instances and one list per tag, and later calls with the same list only look up. That lookup
 * allocates nothing. The partitions of recently seen lists are kept in a small fixed table indexed
 * by the list's identity hash, two slots per list; an old list lingers there until its slot is
 * reused, which bounds what is held to the table's size.
 *
 * <p>Concurrency: the table is written by whichever thread computes a partition (racing threads
 * compute the same one; the last write wins harmlessly) and read by all, without locks.
 *
 * @param <T> the instance type
 */
public final class LaneRouter<T> {
  /** Reads an instance's lane tag; null (or empty) for a base instance. */
  public interface InstanceTags<T> {
    String tagOf(T instance);
  }

  static final int SLOTS = 128;

  private final InstanceTags<T> tags;
  private final AtomicReferenceArray<Partition<T>> table = new AtomicReferenceArray<>(SLOTS);

  public LaneRouter(InstanceTags<T> tags) {
    this.tags = tags;
  }

  /**
   * The instances a call tagged {@code tag} (null: untagged) may go to. Returns {@code instances}
   * itself when no instance carries a tag.
   */
  public List<T> select(List<T> instances, String tag) {
    return partitionOf(instances).select(tag);
  }

  /**
   * {@code instances} split by tag, computed now (not looked up): for a caller that keeps the split
   * itself and knows when the list changes.
   */
  public Partition<T> split(List<T> instances) {
    return Partition.of(instances, tags);
  }

  /** {@code instances} split by tag, looked up by the list's identity (split on first sight). */
  public Partition<T> partitionOf(List<T> instances) {
    int slot = System.identityHashCode(instances) & (SLOTS - 1);
    Partition<T> first = table.get(slot);
    if (first != null && first.source == instances) {
      return first;
    }
    int other = slot ^ 1;
    Partition<T> second = table.get(other);
    if (second != null && second.source == instances) {
      return second;
    }
    Partition<T> computed = Partition.of(instances, tags);
    table.set(first == null || second != null ? slot : other, computed);
    return computed;
  }

  /** One instance list split by tag. Immutable. */
  public static final class Partition<T> {
    final List<T> source;
    final List<T> base;
    final Map<String, List<T>> byTag;
    final int size;

    private Partition(List<T> source, List<T> base, Map<String, List<T>> byTag) {
      this.source = source;
      this.size = source.size();
      this.base = base;
      this.byTag = byTag;
    }

    static <T> Partition<T> of(List<T> instances, InstanceTags<T> tags) {
      List<T> base = new ArrayList<>(instances.size());
      Map<String, List<T>> byTag = new HashMap<>();
      for (T instance : instances) {
        if (instance == null) {
          continue;
        }
        String tag = tags.tagOf(instance);
        if (tag == null || tag.isEmpty()) {
          base.add(instance);
        } else {
          byTag.computeIfAbsent(tag, t -> new ArrayList<>()).add(instance);
        }
      }
      if (byTag.isEmpty() && base.size() == instances.size()) {
        return new Partition<>(instances, instances, Map.of());
      }
      Map<String, List<T>> frozen = new HashMap<>();
      byTag.forEach((tag, list) -> frozen.put(tag, List.copyOf(list)));
      return new Partition<>(instances, List.copyOf(base), Map.copyOf(frozen));
    }

    /** The list that was split. */
    public List<T> source() {
      return source;
    }

    /** How many instances the list held when it was split (lists are replaced, not changed). */
    public int size() {
      return size;
    }

    /** The instances without a tag ({@link #source} itself when no instance has one). */
    public List<T> base() {
      return base;
    }

    /** Whether no instance has a tag (and none is null): the split is the list itself. */
    public boolean untouched() {
      return base == source;
    }

    /**
     * The instances a call tagged {@code tag} (null: untagged) may go to: its lane's, else the
     * base.
     */
    public List<T> select(String tag) {
      if (tag == null || byTag.isEmpty()) {
        return base;
      }
      List<T> lane = byTag.get(tag);
      return lane != null ? lane : base;
    }
  }
}
