package io.sluice.server.config.http;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.config.ConfigKey;
import io.sluice.server.config.ConfigService;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Every held long-poll, ordered by deadline in one binary heap, and expired by one periodic sweep
 * ({@link #expireDue}) rather than a timer per poll: a held poll costs a {@link HeldPoll}, a heap
 * slot and a watch per config, nothing else.
 *
 * <p>Concurrency: the heap and the count are guarded by {@code this}; polls are added on event
 * loops, removed on the fan-out thread (a change), event loops (a closed connection) and the
 * sweeper. Answers and watch bookkeeping happen outside the lock. A poll is in the heap exactly
 * while it waits; each poll records its own heap position so removal is O(log n).
 */
final class HeldPolls {
  private final ConfigService config;
  private final ServerClock clock;
  private final int maxHeld;

  private HeldPoll[] heap = new HeldPoll[64];
  private int size;

  HeldPolls(ConfigService config, ServerClock clock, int maxHeld) {
    this.config = config;
    this.clock = clock;
    this.maxHeld = maxHeld;
  }

  ServerClock clock() {
    return clock;
  }

  /**
   * Holds a poll: puts it in the deadline heap and watches its configs. Returns false (and holds
   * nothing) when {@code maxHeld} polls are held already.
   */
  boolean hold(HeldPoll poll) {
    synchronized (this) {
      if (size >= maxHeld) {
        return false;
      }
      if (size == heap.length) {
        heap = Arrays.copyOf(heap, size * 2);
      }
      heap[size] = poll;
      poll.heapIndex = size;
      size++;
      siftUp(poll.heapIndex);
    }
    for (ConfigKey key : poll.keys()) {
      config.watch(key, poll);
    }
    return true;
  }

  /** Answers every poll whose deadline has passed; returns how many. */
  int expireDue() {
    long now = clock.nanoTime();
    List<HeldPoll> due = null;
    synchronized (this) {
      while (size > 0 && heap[0].deadlineNanos - now <= 0) {
        HeldPoll poll = heap[0];
        removeAt(0);
        if (due == null) {
          due = new ArrayList<>();
        }
        due.add(poll);
      }
    }
    if (due == null) {
      return 0;
    }
    for (HeldPoll poll : due) {
      poll.expire();
    }
    return due.size();
  }

  /** Lets go of a poll that ended early: out of the heap, its watches dropped. */
  void release(HeldPoll poll) {
    synchronized (this) {
      if (poll.heapIndex >= 0) {
        removeAt(poll.heapIndex);
      }
    }
    unwatchAll(poll);
  }

  void unwatchAll(HeldPoll poll) {
    for (ConfigKey key : poll.keys()) {
      config.unwatch(key, poll);
    }
  }

  synchronized int size() {
    return size;
  }

  private void removeAt(int index) {
    HeldPoll removed = heap[index];
    removed.heapIndex = -1;
    size--;
    if (index == size) {
      heap[size] = null;
      return;
    }
    HeldPoll last = heap[size];
    heap[size] = null;
    heap[index] = last;
    last.heapIndex = index;
    siftDown(index);
    if (last.heapIndex == index) {
      siftUp(index);
    }
    if (heap.length > 64 && size < heap.length / 4) {
      heap = Arrays.copyOf(heap, heap.length / 2);
    }
  }

  private void siftUp(int index) {
    HeldPoll poll = heap[index];
    while (index > 0) {
      int parent = (index - 1) >>> 1;
      HeldPoll above = heap[parent];
      if (above.deadlineNanos - poll.deadlineNanos <= 0) {
        break;
      }
      heap[index] = above;
      above.heapIndex = index;
      index = parent;
    }
    heap[index] = poll;
    poll.heapIndex = index;
  }

  private void siftDown(int index) {
    HeldPoll poll = heap[index];
    int half = size >>> 1;
    while (index < half) {
      int child = 2 * index + 1;
      int right = child + 1;
      if (right < size && heap[right].deadlineNanos - heap[child].deadlineNanos < 0) {
        child = right;
      }
      if (poll.deadlineNanos - heap[child].deadlineNanos <= 0) {
        break;
      }
      heap[index] = heap[child];
      heap[index].heapIndex = index;
      index = child;
    }
    heap[index] = poll;
    poll.heapIndex = index;
  }
}
