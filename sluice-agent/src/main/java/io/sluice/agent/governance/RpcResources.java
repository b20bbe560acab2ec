package io.sluice.agent.governance;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The calls of one RPC path, found by what the framework hands the call site (the service
 * interface, the method name, the parameter types) without building their names: a service is found
 * by its class ({@link ClassValue}), a method by name and then by comparing its parameter types by
 * identity. One lookup gives both resources of a call ({@link RpcCall}). Names are Sentinel's Dubbo
 * adapter's: the interface's name for the service, {@code interface:method(type,type)} for a method
 * ({@link Class#getName()} of each type).
 *
 * <p>Concurrency: lookups are lock-free; a new method is added under the service's lock by copying
 * its overload array, so a reader sees either the old or the new array. {@code create} is the
 * governor's bounded by-name table: when it is full it answers null and the method stays
 * ungoverned. Up to {@link #MAX_UNGOVERNED} such methods are remembered as ungoverned, so their
 * calls do not build the name again; past that, each of their calls builds it to be refused again
 * (a path with over 10,000 methods, which the by-name table has already logged).
 *
 * <p>A provider's table also keeps {@link RpcMethodSlots}: a call first probes the slot of the
 * parameter-types array it carries (its {@code MethodDescriptor}'s, on Dubbo's remote protocols),
 * and only on a miss resolves the full way above. A method's overload stores its entry there once
 * the same array has resolved to it twice the full way (so an array made afresh for each call, as
 * an {@code injvm} call's, is never stored), and stores the same entry object again after a
 * collision took its slot; it makes at most {@link #MAX_SLOT_ENTRIES} entries in all (a method
 * reached through that many distinct stable arrays, e.g. one interface exported by several
 * modules), so neither a hit nor a miss allocates once a method has settled. Names, overloads and
 * the bound are the same either way: a slot only ever answers what the full lookup answered for
 * that array.
 */
final class RpcResources {
  static final int MAX_UNGOVERNED = 1024;
  static final int MAX_SLOT_ENTRIES = 4;

  private final Function<String, GovernedResource> create;
  private final RpcMethodSlots slots; // null: this path's calls are looked up the full way only
  private final AtomicInteger ungoverned = new AtomicInteger();
  private final ClassValue<Service> services =
      new ClassValue<>() {
        @Override
        protected Service computeValue(Class<?> type) {
          return new Service(type.getName());
        }
      };

  /**
   * A table that looks calls up the full way only (a consumer's: its arrays are fresh per call).
   */
  RpcResources(Function<String, GovernedResource> create) {
    this(create, false);
  }

  /**
   * @param bySlot whether calls are first looked for by their parameter-types array ({@link
   *     RpcMethodSlots}): for a provider, whose invocations carry their method descriptor's array
   */
  RpcResources(Function<String, GovernedResource> create, boolean bySlot) {
    this.create = create;
    this.slots = bySlot ? new RpcMethodSlots() : null;
  }

  /** The call's handle, or null when the path's table is full. */
  RpcCall call(Class<?> type, String method, Class<?>[] parameterTypes) {
    RpcMethodSlots slots = this.slots;
    if (slots == null || parameterTypes == null) {
      return callByName(type, method, parameterTypes);
    }
    RpcCall call = slots.get(type, method, parameterTypes);
    return call != null ? call : resolve(type, method, parameterTypes, slots);
  }

  /**
   * The call's handle found the full way (class, name, overload), never through the slots: as every
   * call went before them; the benchmark's comparison takes it (FlowGovernor's switch).
   */
  RpcCall callByName(Class<?> type, String method, Class<?>[] parameterTypes) {
    return resolve(type, method, parameterTypes, null);
  }

  /** The full lookup; a known overload is offered to {@code slots} (null: none) on the way out. */
  private RpcCall resolve(
      Class<?> type, String method, Class<?>[] parameterTypes, RpcMethodSlots slots) {
    Service service = services.get(type);
    Overload[] overloads = service.methods.get(method);
    if (overloads != null) {
      for (Overload overload : overloads) {
        if (overload.matches(parameterTypes)) {
          if (slots != null) {
            overload.remember(type, parameterTypes, slots);
          }
          return overload.call;
        }
      }
    }
    return service.add(method, parameterTypes, this);
  }

  /** The slots of this table, or null (for tests). */
  RpcMethodSlots slots() {
    return slots;
  }

  /** {@code interface:method(type,type)}. */
  static String methodName(String service, String method, Class<?>[] parameterTypes) {
    StringBuilder name = new StringBuilder(service).append(':').append(method).append('(');
    if (parameterTypes != null) {
      for (int i = 0; i < parameterTypes.length; i++) {
        if (i > 0) {
          name.append(',');
        }
        name.append(parameterTypes[i].getName());
      }
    }
    return name.append(')').toString();
  }

  private static final class Service {
    final String name;
    final ConcurrentHashMap<String, Overload[]> methods = new ConcurrentHashMap<>();
    GovernedResource self; // guarded by this

    Service(String name) {
      this.name = name;
    }

    synchronized RpcCall add(String method, Class<?>[] parameterTypes, RpcResources table) {
      Overload[] before = methods.get(method);
      if (before != null) {
        for (Overload overload : before) {
          if (overload.matches(parameterTypes)) {
            return overload.call;
          }
        }
      }
      if (self == null) {
        self = table.create.apply(name);
      }
      GovernedResource resource = table.create.apply(methodName(name, method, parameterTypes));
      RpcCall call = resource == null ? null : new RpcCall(self, resource);
      if (call == null && table.ungoverned.incrementAndGet() > MAX_UNGOVERNED) {
        return null;
      }
      Class<?>[] types = parameterTypes == null ? new Class<?>[0] : parameterTypes.clone();
      Overload[] after;
      if (before == null) {
        after = new Overload[] {new Overload(method, types, call)};
      } else {
        after = Arrays.copyOf(before, before.length + 1);
        after[before.length] = new Overload(method, types, call);
      }
      methods.put(method, after);
      return call;
    }
  }

  /**
   * One method overload. Its slot entry is written under its lock (at most {@link
   * #MAX_SLOT_ENTRIES} made) and read racily: an entry is immutable, so a reader sees null or a
   * whole entry.
   */
  private static final class Overload {
    final String method;
    final Class<?>[] parameterTypes;
    final RpcCall call; // null: the table was full, the method is not governed
    // The entry last made for the slots, and the identity hash of the array last seen on the full
    // path (not the array: that would keep it alive); both racy, see remember.
    private RpcMethodSlots.Entry slotEntry;
    private int lastSeen;
    private int entriesMade; // written under this, read racily (it only grows)

    Overload(String method, Class<?>[] parameterTypes, RpcCall call) {
      this.method = method;
      this.parameterTypes = parameterTypes;
      this.call = call;
    }

    /**
     * Called when {@code array} missed the slots and resolved to this overload the full way: stores
     * this overload's entry of that array again, or, when the array resolved here the time before
     * too (so it is not made afresh per call; told by its identity hash, and a fresh array that
     * happens to repeat the last one's costs one entry of the bound) and no other method's entry
     * holds it, a new entry.
     */
    void remember(Class<?> type, Class<?>[] array, RpcMethodSlots slots) {
      if (call == null) {
        return;
      }
      RpcMethodSlots.Entry entry = slotEntry;
      if (entry != null && entry.refersTo(array)) {
        slots.put(entry);
        return;
      }
      int seen = System.identityHashCode(array);
      if (lastSeen != seen) {
        lastSeen = seen;
        return;
      }
      // Racy reads, checked again under the lock: a shared array or a spent budget costs no lock.
      if (entriesMade >= MAX_SLOT_ENTRIES || slots.holds(array)) {
        return;
      }
      entry = newEntry(type, array, slots);
      if (entry != null) {
        slots.put(entry);
      }
    }

    private synchronized RpcMethodSlots.Entry newEntry(
        Class<?> type, Class<?>[] array, RpcMethodSlots slots) {
      RpcMethodSlots.Entry entry = slotEntry;
      if (entry != null && entry.refersTo(array)) {
        return entry;
      }
      if (entriesMade >= MAX_SLOT_ENTRIES || slots.holds(array)) {
        return null;
      }
      entriesMade++;
      entry = new RpcMethodSlots.Entry(array, type, method, call);
      slotEntry = entry;
      return entry;
    }

    boolean matches(Class<?>[] types) {
      int length = types == null ? 0 : types.length;
      if (length != parameterTypes.length) {
        return false;
      }
      for (int i = 0; i < length; i++) {
        if (types[i] != parameterTypes[i]) {
          return false;
        }
      }
      return true;
    }
  }
}
