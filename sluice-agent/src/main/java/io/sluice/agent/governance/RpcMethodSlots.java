package io.sluice.agent.governance;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;

/**
 * The calls of a Dubbo provider's methods, found by the parameter-types array the invocation
 * carries: a probe of a small table indexed by the array's identity hash, a reference compare, the
 * interface and the method name checked, the call. No {@link ClassValue}, no map by name, no
 * overload scan, nothing allocated.
 *
 * <p>Why the array: a provider's invocation carries its method's parameter types as the very array
 * of the method's {@code MethodDescriptor} ({@code getParameterClasses()}, a field), on the {@code
 * dubbo} protocol ({@code DecodeableRpcInvocation} looks the descriptor up while it decodes the
 * arguments) and on {@code tri} ({@code AbstractServerCall} in Dubbo 3.2, {@code
 * AbstractServerTransportListener} in 3.3), so one array stands for one method of one exported
 * interface for as long as the application runs. Not always: a no-argument call on {@code dubbo}
 * carries Dubbo's one shared empty array, a generic call ({@code $invoke}) a shared constant, and
 * an {@code injvm} call the consumer's fresh copy of {@code Method.getParameterTypes()}. Hence the
 * checks on a hit, and {@link RpcResources}, which alone writes here, stores only what it has seen
 * hold.
 *
 * <p>The table only remembers; {@link RpcResources#call} resolves the full way (class, name,
 * overload) on a miss. A miss is always correct, merely slower: an array never stored, one whose
 * slot another array took (collisions overwrite), one that was collected, or one that another
 * method's entry holds (a shared array).
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>An entry maps one array, held weakly, to the call of one method: the interface, the name
 *       and the overload it resolved to, all final, so an entry once read is whole. The array is
 *       compared with {@link java.lang.ref.Reference#refersTo}, which neither loads nor keeps alive
 *       what the entry holds. A hit needs the same array, the same interface ({@code ==}) and an
 *       equal method name; the overload is the array's, whose elements Dubbo never writes.
 *   <li>An array is looked for in two slots, its identity hash's and that slot's neighbour ({@code
 *       slot ^ 1}). A second method carrying an array already stored (a shared one) is not stored,
 *       and resolves the full way on every call. Two writers racing with two methods of one array
 *       may both store; a lookup reads only the first slot that holds the array, so the other
 *       method misses: slower, never another method's call.
 *   <li>Only governed calls are stored ({@code call != null}): a method the full table left
 *       ungoverned stays as {@link RpcResources} documents it.
 *   <li>The table has {@link #SLOTS} slots and never grows. An entry holds its interface and call
 *       strongly until its slot is reused: at most that many interfaces are kept loaded by it.
 * </ul>
 *
 * <p>Concurrency: slots are written racily, each write one immutable entry published with a release
 * store ({@link VarHandle#setRelease}) and read with an acquire load, so a reader sees either an
 * older whole entry or the new whole entry. Racing writers store entries of the same array and
 * method, or of colliding arrays; the last write wins, and a lost write is a later miss.
 */
final class RpcMethodSlots {
  static final int SLOTS = 1024;

  private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Entry[].class);

  private final Entry[] table = new Entry[SLOTS];

  /** One parameter-types array's method. */
  static final class Entry extends WeakReference<Class<?>[]> {
    final Class<?> type;
    final String method;
    final RpcCall call;

    Entry(Class<?>[] parameterTypes, Class<?> type, String method, RpcCall call) {
      super(parameterTypes);
      this.type = type;
      this.method = method;
      this.call = call;
    }
  }

  /**
   * The call stored for this very array, if its entry is of {@code type}'s {@code method}; else
   * null (then resolve it the full way).
   */
  RpcCall get(Class<?> type, String method, Class<?>[] parameterTypes) {
    int slot = System.identityHashCode(parameterTypes) & (SLOTS - 1);
    Entry entry = (Entry) SLOT.getAcquire(table, slot);
    if (entry == null || !entry.refersTo(parameterTypes)) {
      entry = (Entry) SLOT.getAcquire(table, slot ^ 1);
      if (entry == null || !entry.refersTo(parameterTypes)) {
        return null;
      }
    }
    String stored = entry.method;
    return entry.type == type && (stored == method || stored.equals(method)) ? entry.call : null;
  }

  /** Whether one of the array's two slots holds an entry of it (any method's). */
  boolean holds(Class<?>[] parameterTypes) {
    int slot = System.identityHashCode(parameterTypes) & (SLOTS - 1);
    return holds((Entry) SLOT.getAcquire(table, slot), parameterTypes)
        || holds((Entry) SLOT.getAcquire(table, slot ^ 1), parameterTypes);
  }

  /**
   * Stores {@code entry}, unless one of its array's slots holds an entry of that array already
   * (this one, a twin, or another method's: the array is shared, and the first stays): in a vacant
   * one of the two, else in the array's own slot, over what was there. Allocates nothing.
   */
  void put(Entry entry) {
    Class<?>[] parameterTypes = entry.get();
    if (parameterTypes == null) {
      return;
    }
    int slot = System.identityHashCode(parameterTypes) & (SLOTS - 1);
    Entry first = (Entry) SLOT.getAcquire(table, slot);
    Entry second = (Entry) SLOT.getAcquire(table, slot ^ 1);
    if (holds(first, parameterTypes) || holds(second, parameterTypes)) {
      return;
    }
    int target = !vacant(first) && vacant(second) ? slot ^ 1 : slot;
    SLOT.setRelease(table, target, entry);
  }

  /** How many slots hold a live array now (for tests). */
  int live() {
    int live = 0;
    for (int i = 0; i < SLOTS; i++) {
      if (!vacant((Entry) SLOT.getAcquire(table, i))) {
        live++;
      }
    }
    return live;
  }

  private static boolean holds(Entry entry, Class<?>[] parameterTypes) {
    return entry != null && entry.refersTo(parameterTypes);
  }

  /** Whether a slot is free: never used, or its array was collected. */
  private static boolean vacant(Entry entry) {
    return entry == null || entry.refersTo(null);
  }
}
