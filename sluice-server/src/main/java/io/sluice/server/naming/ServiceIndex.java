package io.sluice.server.naming;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * The names of listed services by namespace and group, kept sorted as services come and go, so a
 * page of a service list is read without scanning or sorting every service: a lookup, then as many
 * steps as the page's offset and size.
 *
 * <p>Concurrency: {@link #listed} and {@link #unlisted} are called inside the registry's {@code
 * compute} for the service, so the calls for one service are ordered; the calls for one group
 * serialize on the group's entry here. Readers iterate the skip list without locking and may see a
 * service that is coming or going, as any concurrent read would.
 */
final class ServiceIndex {
  private final Map<Group, Names> groups = new ConcurrentHashMap<>();

  /** The service became listed (it has instances or metadata). */
  void listed(ServiceKey service) {
    groups.compute(
        new Group(service.namespace(), service.group()),
        (group, names) -> {
          Names present = names == null ? new Names() : names;
          if (present.sorted.add(service.name())) {
            present.count++;
          }
          return present;
        });
  }

  /** The service is no longer listed. */
  void unlisted(ServiceKey service) {
    groups.computeIfPresent(
        new Group(service.namespace(), service.group()),
        (group, names) -> {
          if (names.sorted.remove(service.name())) {
            names.count--;
          }
          return names.count == 0 ? null : names;
        });
  }

  /** One page of a group's service names, sorted, and how many there are (pages count from 1). */
  ServicePage page(String namespace, String group, int pageNo, int pageSize) {
    Names names = groups.get(new Group(namespace, group));
    if (names == null) {
      return new ServicePage(0, List.of());
    }
    int count = names.count;
    long from = Math.max(0, (long) (pageNo - 1) * pageSize);
    List<String> page = new ArrayList<>(Math.min(Math.max(0, pageSize), 1024));
    Iterator<String> iterator = names.sorted.iterator();
    for (long skipped = 0; skipped < from && iterator.hasNext(); skipped++) {
      iterator.next();
    }
    while (page.size() < pageSize && iterator.hasNext()) {
      page.add(iterator.next());
    }
    return new ServicePage(count, List.copyOf(page));
  }

  /** How many services are listed in all. */
  int size() {
    int total = 0;
    for (Names names : groups.values()) {
      total += names.count;
    }
    return total;
  }

  private record Group(String namespace, String group) {}

  /** One group's names; {@code count} is written under the group's entry lock. */
  private static final class Names {
    final ConcurrentSkipListSet<String> sorted = new ConcurrentSkipListSet<>();
    volatile int count;
  }
}
