package io.sluice.server.naming;

import io.sluice.server.clock.ServerClock;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns service changes into pushes to subscribers, at most one round of pushes per {@code
 * delayMillis} (Nacos waits 500 ms after each change; we default to a few tens): a change after a
 * quiet spell of that long goes out at once, and changes during the spell after a round wait for
 * the rest of it and go out together. Each changed service's newest snapshot goes once to each of
 * its subscribers, however many changes it went through meanwhile. So a lone change (a cluster node
 * applying one registration made elsewhere) costs no wait, and a burst costs one round per delay,
 * as before.
 *
 * <p>The backlog is a set of service keys, so it is bounded by the number of services however fast
 * changes come. Everything runs on the one push thread given; {@link #lastRoundNanos} is written
 * there and read by whoever reports a change.
 */
final class NamingPushes implements Consumer<ServiceKey> {
  private static final Logger log = LoggerFactory.getLogger(NamingPushes.class);

  private final ServiceRegistry registry;
  private final ScheduledExecutorService pushThread;
  private final ServerClock clock;
  private final long delayNanos;
  private final Set<ServiceKey> dirty = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean flushScheduled = new AtomicBoolean();

  /** When the last round of pushes began (a delay before construction: the first goes at once). */
  private volatile long lastRoundNanos;

  NamingPushes(
      ServiceRegistry registry,
      ScheduledExecutorService pushThread,
      ServerClock clock,
      long delayMillis) {
    this.registry = registry;
    this.pushThread = pushThread;
    this.clock = clock;
    this.delayNanos = TimeUnit.MILLISECONDS.toNanos(delayMillis);
    this.lastRoundNanos = clock.nanoTime() - delayNanos;
  }

  @Override
  public void accept(ServiceKey changed) {
    // Nobody to push to: no round (a registration-heavy load would otherwise wake the push thread
    // every delay for nothing). A subscriber that arrives after this check is sent the snapshot
    // of then by pushNow, and the change, applied before this call, is in it.
    if (registry.subscribers(changed).isEmpty()) {
      return;
    }
    dirty.add(changed);
    if (flushScheduled.compareAndSet(false, true)) {
      long sinceLastRound = clock.nanoTime() - lastRoundNanos;
      pushThread.schedule(
          this::flush, Math.max(0, delayNanos - sinceLastRound), TimeUnit.NANOSECONDS);
    }
  }

  /** Sends a new subscriber the current snapshot right away, without waiting for a change. */
  void pushNow(ServiceKey key, Subscriber subscriber) {
    pushThread.execute(() -> deliver(subscriber, registry.viewOrEmpty(key)));
  }

  private void flush() {
    lastRoundNanos = clock.nanoTime();
    flushScheduled.set(false);
    for (ServiceKey key : dirty) {
      if (!dirty.remove(key)) {
        continue;
      }
      Collection<Subscriber> subscribers = registry.subscribers(key);
      if (subscribers.isEmpty()) {
        continue; // no view built for a service nobody watches (a registration-heavy load)
      }
      ServiceView view = registry.viewOrEmpty(key);
      for (Subscriber subscriber : subscribers) {
        deliver(subscriber, view);
      }
    }
  }

  private static void deliver(Subscriber subscriber, ServiceView view) {
    try {
      subscriber.serviceChanged(view);
    } catch (RuntimeException e) {
      log.warn("push of {} to {} failed", view.key(), subscriber, e);
    }
  }
}
