package io.sluice.server.testing;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A recorded history of reads and writes of registers (one per key), and a linearizability check of
 * it: the Wing and Gong search with Lowe's memoisation of (linearized set, state) pairs, run per
 * key (linearizability is compositional, so keys are checked apart).
 *
 * <p>A write whose outcome the client never learned (an error, a timeout) may have taken effect at
 * any time after it was called, or never: it is given a return time of infinity, so the search may
 * place it anywhere after its call, including after everything else, which is the same as never. A
 * read that failed observed nothing and is not recorded.
 *
 * <p>A write with an unknown outcome whose value no read returned is left out before the search:
 * placing it after everything else is always allowed and changes no read, so the history is
 * linearizable with it exactly when it is without it. This keeps a failover, which leaves many
 * writes unknown, from making the search exponential. The search also has a step budget; a history
 * it cannot decide within it is reported, never passed.
 *
 * <p>Recording is thread-safe: the methods synchronise on the history.
 */
public final class RegisterHistory {
  /** One operation: a write of {@code value}, or a read that returned {@code value}. */
  public static final class Op {
    final int id;
    final String key;
    final boolean write;
    final long calledAt;
    String value;
    long returnedAt = Long.MAX_VALUE;
    boolean settled;

    private Op(int id, String key, boolean write, String value, long calledAt) {
      this.id = id;
      this.key = key;
      this.write = write;
      this.value = value;
      this.calledAt = calledAt;
    }

    @Override
    public String toString() {
      return (write ? "write(" : "read->(")
          + value
          + ")@["
          + calledAt
          + ","
          + (returnedAt == Long.MAX_VALUE ? "inf" : returnedAt)
          + "]";
    }
  }

  private final List<Op> ops = new ArrayList<>();
  private final long origin = System.nanoTime();

  /** A write of {@code value} to {@code key} starts now. */
  public synchronized Op write(String key, String value) {
    return add(key, true, value);
  }

  /** A read of {@code key} starts now. */
  public synchronized Op read(String key) {
    return add(key, false, null);
  }

  /** The write was acknowledged, or the read returned {@code value} (null: absent). */
  public synchronized void ok(Op op, String value) {
    op.returnedAt = System.nanoTime() - origin;
    if (!op.write) {
      op.value = value;
    }
    op.settled = true;
  }

  /**
   * The outcome is unknown: a write may still take effect (it stays in the history with no return);
   * a read observed nothing (it is dropped).
   */
  public synchronized void unknown(Op op) {
    if (op.write) {
      op.settled = true; // returnedAt stays infinite
    } else {
      ops.remove(op);
    }
  }

  /** Same-thread helper for tests that build a history by hand: times given explicitly. */
  public synchronized void add(
      String key, boolean write, String value, long calledAt, long returnedAt) {
    Op op = new Op(ops.size(), key, write, value, calledAt);
    op.returnedAt = returnedAt;
    op.settled = true;
    ops.add(op);
  }

  public synchronized int size() {
    return ops.size();
  }

  /** Null when every key's history is linearizable, else a description of the first that is not. */
  public synchronized String violation() {
    Set<String> observed = new HashSet<>();
    for (Op op : ops) {
      if (op.settled && !op.write && op.value != null) {
        observed.add(op.key + "\u0000" + op.value);
      }
    }
    Map<String, List<Op>> byKey = new HashMap<>();
    for (Op op : ops) {
      boolean unobservedUnknownWrite =
          op.write
              && op.returnedAt == Long.MAX_VALUE
              && !observed.contains(op.key + "\u0000" + op.value);
      if (op.settled && !unobservedUnknownWrite) {
        byKey.computeIfAbsent(op.key, k -> new ArrayList<>()).add(op);
      }
    }
    for (Map.Entry<String, List<Op>> key : byKey.entrySet()) {
      Boolean verdict = linearizable(key.getValue());
      if (verdict == null) {
        return "key " + key.getKey() + ": undecided within " + MAX_STEPS + " search steps";
      }
      if (!verdict) {
        return "key " + key.getKey() + " is not linearizable: " + key.getValue();
      }
    }
    return null;
  }

  private Op add(String key, boolean write, String value) {
    Op op = new Op(ops.size(), key, write, value, System.nanoTime() - origin);
    ops.add(op);
    return op;
  }

  /** One event of the search list: the call or the return of an op. */
  private static final class Event {
    final Op op;
    final boolean call;
    Event match;
    Event prev;
    Event next;

    Event(Op op, boolean call) {
      this.op = op;
      this.call = call;
    }
  }

  private record Linearized(BitSet ops, String state) {}

  /** Search steps per key before the history is reported undecided. */
  static final long MAX_STEPS = 2_000_000;

  /** True or false, or null when undecided within {@link #MAX_STEPS}. */
  private static Boolean linearizable(List<Op> history) {
    long steps = 0;
    // Events in time order; at equal times returns go after calls, the permissive choice.
    List<Event> events = new ArrayList<>();
    Map<Op, Integer> index = new HashMap<>();
    for (int i = 0; i < history.size(); i++) {
      index.put(history.get(i), i);
      Event call = new Event(history.get(i), true);
      Event ret = new Event(history.get(i), false);
      call.match = ret;
      ret.match = call;
      events.add(call);
      events.add(ret);
    }
    events.sort(
        (a, b) -> {
          long ta = a.call ? a.op.calledAt : a.op.returnedAt;
          long tb = b.call ? b.op.calledAt : b.op.returnedAt;
          if (ta != tb) {
            return Long.compare(ta, tb);
          }
          return Boolean.compare(!a.call, !b.call);
        });
    Event head = new Event(null, true);
    Event last = head;
    for (Event event : events) {
      last.next = event;
      event.prev = last;
      last = event;
    }

    Set<Linearized> seen = new HashSet<>();
    BitSet linearized = new BitSet(history.size());
    String state = null;
    List<Event> stackEvents = new ArrayList<>();
    List<String> stackStates = new ArrayList<>();
    Event entry = head.next;
    while (head.next != null) {
      if (++steps > MAX_STEPS) {
        return null;
      }
      if (entry == null) {
        return false;
      }
      if (entry.call) {
        Op op = entry.op;
        boolean fits = op.write || Objects.equals(op.value, state);
        String next = op.write ? op.value : state;
        if (fits) {
          BitSet withOp = (BitSet) linearized.clone();
          withOp.set(index.get(op));
          if (seen.add(new Linearized(withOp, next))) {
            stackEvents.add(entry);
            stackStates.add(state);
            state = next;
            linearized = withOp;
            lift(entry);
            entry = head.next;
            continue;
          }
        }
        entry = entry.next;
      } else {
        if (stackEvents.isEmpty()) {
          return false;
        }
        Event top = stackEvents.remove(stackEvents.size() - 1);
        state = stackStates.remove(stackStates.size() - 1);
        linearized = (BitSet) linearized.clone();
        linearized.clear(index.get(top.op));
        unlift(top);
        entry = top.next;
      }
    }
    return true;
  }

  private static void lift(Event call) {
    call.prev.next = call.next;
    if (call.next != null) {
      call.next.prev = call.prev;
    }
    Event ret = call.match;
    ret.prev.next = ret.next;
    if (ret.next != null) {
      ret.next.prev = ret.prev;
    }
  }

  private static void unlift(Event call) {
    Event ret = call.match;
    ret.prev.next = ret;
    if (ret.next != null) {
      ret.next.prev = ret;
    }
    call.prev.next = call;
    if (call.next != null) {
      call.next.prev = call;
    }
  }
}
