package io.sluice.agent.governance;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;

/**
 * The governed resource of each Spring Cloud Gateway {@code Route} object, found by the route's
 * identity: a probe of a small table indexed by its identity hash, a reference compare, the
 * resource. Nothing is read from the route (no id through a method handle, no string hashed and
 * compared in a map), nothing is allocated: with cold caches that is a few cache lines instead of
 * the dozen the id path touches.
 *
 * <p>The table only remembers; {@link FlowGovernor#gatewayResource} resolves by id as before on a
 * miss and stores the answer here. A miss is always correct, merely slower: a route never seen, one
 * whose slots other routes took (collisions overwrite), one whose entry was collected. Spring Cloud
 * Gateway builds new {@code Route} objects when its routes refresh ({@code RefreshRoutesEvent},
 * {@code CachingRouteLocator}); a refreshed route misses once, resolves by its id to the same
 * resource as its predecessor, and takes a slot of its own, while the predecessor's entry goes when
 * the old route is collected or its slot is reused.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>An entry maps one route object, held weakly, to the resource its id resolved to; both are
 *       final, so an entry once read is whole. An entry whose route is collected is a miss. The
 *       route is compared with {@link java.lang.ref.Reference#refersTo}, which neither loads nor
 *       keeps alive what the entry holds.
 *   <li>A route is looked for in two slots, its identity hash's and that slot's neighbour ({@code
 *       slot ^ 1}), and stored in one of them, so routes colliding in pairs both stay.
 *   <li>The table has {@link #SLOTS} slots and never grows: it holds at most that many entries and
 *       their resources (which the id map holds anyway), whatever the number of routes or
 *       refreshes.
 * </ul>
 *
 * <p>Concurrency: slots are written racily, each write one immutable entry published with a release
 * store ({@link VarHandle#setRelease}) and read with an acquire load, so a reader sees either an
 * older whole entry or the new whole entry. Racing writers store equal answers (the id map resolves
 * an id to one resource); the last write wins, and a lost write is a later miss.
 */
final class GatewayRouteSlots {
  static final int SLOTS = 256;

  private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Entry[].class);

  private final Entry[] table = new Entry[SLOTS];

  /** One route object's resource. */
  static final class Entry extends WeakReference<Object> {
    final GovernedResource resource;

    Entry(Object route, GovernedResource resource) {
      super(route);
      this.resource = resource;
    }
  }

  /** The resource stored for this very route object, or null (then resolve it by id). */
  GovernedResource get(Object route) {
    int slot = System.identityHashCode(route) & (SLOTS - 1);
    Entry entry = (Entry) SLOT.getAcquire(table, slot);
    if (entry != null && entry.refersTo(route)) {
      return entry.resource;
    }
    entry = (Entry) SLOT.getAcquire(table, slot ^ 1);
    return entry != null && entry.refersTo(route) ? entry.resource : null;
  }

  /**
   * Remembers {@code route}'s resource: in whichever of its two slots holds it already or is
   * vacant, else in its own slot, over what was there. Not on the hot path (it allocates the
   * entry).
   */
  void put(Object route, GovernedResource resource) {
    int slot = System.identityHashCode(route) & (SLOTS - 1);
    Entry first = (Entry) SLOT.getAcquire(table, slot);
    Entry second = (Entry) SLOT.getAcquire(table, slot ^ 1);
    int target = slot;
    if (!holds(first, route) && (holds(second, route) || (!vacant(first) && vacant(second)))) {
      target = slot ^ 1;
    }
    SLOT.setRelease(table, target, new Entry(route, resource));
  }

  /** How many slots hold a live route now (for tests). */
  int live() {
    int live = 0;
    for (int i = 0; i < SLOTS; i++) {
      if (!vacant((Entry) SLOT.getAcquire(table, i))) {
        live++;
      }
    }
    return live;
  }

  private static boolean holds(Entry entry, Object route) {
    return entry != null && entry.refersTo(route);
  }

  /** Whether a slot is free: never used, or its route was collected. */
  private static boolean vacant(Entry entry) {
    return entry == null || entry.refersTo(null);
  }
}
