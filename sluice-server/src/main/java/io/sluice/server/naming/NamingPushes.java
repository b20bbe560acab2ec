package io.sluice.server.naming;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns service changes into pushes to subscribers. Changes are gathered for at most {@code
 * delayMillis} (Nacos waits 500 ms; we default to a few tens) and each changed service's newest
 * snapshot goes once to each of its subscribers, however many changes it went through meanwhile.
 *
 * <p>The backlog is a set of service keys, so it is bounded by the number of services however fast
 * changes come. Everything runs on the one push thread given.
 */
final class NamingPushes implements Consumer<ServiceKey> {
  private static final Logger log = LoggerFactory.getLogger(NamingPushes.class);

  private final ServiceRegistry registry;
  private final ScheduledExecutorService pushThread;
  private final long delayMillis;
  private final Set<ServiceKey> dirty = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean flushScheduled = new AtomicBoolean();

  NamingPushes(ServiceRegistry registry, ScheduledExecutorService pushThread, long delayMillis) {
    this.registry = registry;
    this.pushThread = pushThread;
    this.delayMillis = delayMillis;
  }

  @Override
  public void accept(ServiceKey changed) {
    dirty.add(changed);
    if (flushScheduled.compareAndSet(false, true)) {
      pushThread.schedule(this::flush, delayMillis, TimeUnit.MILLISECONDS);
    }
  }

  /** Sends a new subscriber the current snapshot right away, without waiting for a change. */
  void pushNow(ServiceKey key, Subscriber subscriber) {
    pushThread.execute(() -> deliver(subscriber, registry.viewOrEmpty(key)));
  }

  private void flush() {
    flushScheduled.set(false);
    for (ServiceKey key : dirty) {
      if (!dirty.remove(key)) {
        continue;
      }
      ServiceView view = registry.viewOrEmpty(key);
      for (Subscriber subscriber : registry.subscribers(key)) {
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
