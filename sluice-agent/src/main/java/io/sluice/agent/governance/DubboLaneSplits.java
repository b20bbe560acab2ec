package io.sluice.agent.governance;

import io.sluice.agent.lanes.LaneRouter;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.lang.reflect.Field;
import java.util.List;

/**
 * The lane split of each Dubbo consumer directory's providers, found from the directory itself: a
 * call reads the directory's own provider list (Dubbo's {@code AbstractDirectory.invokers}, which
 * it replaces whole when the registry changes the providers) and compares it with the list the
 * split was made of. The same list: the split is current, and the call uses it as it is. Another
 * list: the split is made again (and kept) before it is used, so a split of a previous provider
 * list is never used.
 *
 * <p>Per call this costs a probe of a small table indexed by the directory's identity hash, the
 * entry, and the directory's field, read at an offset found once per directory class (with {@code
 * sun.misc.Unsafe}: the agent cannot see Dubbo's types, and a method handle that is not a constant
 * goes through several objects and a stub of its own on every call, which with cold caches cost a
 * few microseconds). The offset is used only on the very object the entry was made for, whose class
 * was checked then. A directory that is not an {@code AbstractDirectory}, or a JVM without {@code
 * Unsafe} or on JDK 24 and later (where using it prints a warning), has no split here ({@link #of}
 * returns null) and the caller splits by list: the cold saving is then lost, nothing else changes.
 *
 * <p>Concurrency and memory: entries are immutable and published with release/acquire; racing
 * threads make the same split and the last write wins. An entry holds its directory weakly and its
 * provider lists strongly, until its slot is reused; the table has {@link #SLOTS} slots (two
 * candidates per directory), so what is held is bounded.
 */
final class DubboLaneSplits {
  static final int SLOTS = 128;

  private static final sun.misc.Unsafe UNSAFE = unsafe();
  private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Entry[].class);

  private static final ClassValue<Long> OFFSETS =
      new ClassValue<>() {
        @Override
        protected Long computeValue(Class<?> type) {
          return offsetOf(type, DubboDirectories.ABSTRACT_DIRECTORY);
        }
      };

  private final LaneRouter<Object> router;
  private final Entry[] table = new Entry[SLOTS];

  /**
   * @param router splits a provider list by the providers' tags
   */
  DubboLaneSplits(LaneRouter<Object> router) {
    this.router = router;
  }

  /** A directory's split, of the provider list it held then ({@code split.source()}). */
  static final class Entry extends WeakReference<Object> {
    final long offset;
    final LaneRouter.Partition<Object> split;

    Entry(Object directory, long offset, LaneRouter.Partition<Object> split) {
      super(directory);
      this.offset = offset;
      this.split = split;
    }
  }

  /**
   * The split of {@code directory}'s current providers, made now if they changed since the last
   * call; null when this directory's providers cannot be read as Dubbo's own list.
   */
  LaneRouter.Partition<Object> of(Object directory) {
    if (UNSAFE == null || directory == null) {
      return null;
    }
    int slot = System.identityHashCode(directory) & (SLOTS - 1);
    Entry entry = (Entry) SLOT.getAcquire(table, slot);
    if (entry == null || entry.get() != directory) {
      entry = (Entry) SLOT.getAcquire(table, slot ^ 1);
      if (entry == null || entry.get() != directory) {
        return refresh(directory, slot);
      }
    }
    if (UNSAFE.getObjectVolatile(directory, entry.offset) != entry.split.source()) {
      return refresh(directory, slot);
    }
    return entry.split;
  }

  /** Splits the directory's providers as they are now and keeps the split. Not on the hot path. */
  @SuppressWarnings("unchecked")
  private LaneRouter.Partition<Object> refresh(Object directory, int slot) {
    long offset = OFFSETS.get(directory.getClass());
    if (offset < 0) {
      return null;
    }
    Object providers = UNSAFE.getObjectVolatile(directory, offset);
    if (!(providers instanceof List)) {
      return null;
    }
    LaneRouter.Partition<Object> split = router.split((List<Object>) providers);
    Entry fresh = new Entry(directory, offset, split);
    Entry first = (Entry) SLOT.getAcquire(table, slot);
    Entry second = (Entry) SLOT.getAcquire(table, slot ^ 1);
    int target;
    if (holds(first, directory)) {
      target = slot;
    } else if (holds(second, directory)) {
      target = slot ^ 1;
    } else if (vacant(first) || !vacant(second)) {
      target = slot;
    } else {
      target = slot ^ 1;
    }
    SLOT.setRelease(table, target, fresh);
    return split;
  }

  private static boolean holds(Entry entry, Object directory) {
    return entry != null && entry.get() == directory;
  }

  /** Whether a slot is free: never used, or its directory was collected. */
  private static boolean vacant(Entry entry) {
    return entry == null || entry.get() == null;
  }

  /**
   * The offset of the {@code invokers} list field of {@code type}'s superclass (or itself) named
   * {@code owner}; -1 when there is none, it is not a list, or {@code Unsafe} is missing.
   */
  static long offsetOf(Class<?> type, String owner) {
    if (UNSAFE == null) {
      return -1;
    }
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      if (c.getName().equals(owner)) {
        try {
          Field field = c.getDeclaredField("invokers");
          if (!List.class.isAssignableFrom(field.getType())
              || java.lang.reflect.Modifier.isStatic(field.getModifiers())) {
            return -1;
          }
          return UNSAFE.objectFieldOffset(field);
        } catch (ReflectiveOperationException | RuntimeException e) {
          return -1;
        }
      }
    }
    return -1;
  }

  /**
   * {@code Unsafe}, or null on JDK 24 and later: there its memory-access methods print a warning to
   * the application's standard error on first use (JEP 498), which an agent must not cause; the
   * caller then splits by list, as for any other directory.
   */
  private static sun.misc.Unsafe unsafe() {
    if (Runtime.version().feature() >= 24) {
      return null;
    }
    try {
      Field field = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
      field.setAccessible(true);
      return (sun.misc.Unsafe) field.get(null);
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      return null;
    }
  }
}
