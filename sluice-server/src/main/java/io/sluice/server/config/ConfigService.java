package io.sluice.server.config;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.config.ConfigCommand.Publish;
import io.sluice.server.config.ConfigCommand.Remove;
import io.sluice.server.feature.ReplicatedWrites;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The config center's one door: every protocol reads, writes, searches, watches and reads history
 * through here and nowhere else. Reads come straight from memory (history from disk); writes are
 * validated, stamped with the md5 and the time, and replicated through {@link ReplicatedWrites},
 * then acknowledged once applied, so the writer's next read sees its write.
 *
 * <p>Every method that refuses a request does so with a {@link ConfigException}: thrown by reads,
 * failing the future of writes (which never throw). What a write did is a {@link ConfigOutcome}.
 *
 * <p>Threads: everything may be called on an event loop except what says it scans every config or
 * reads from disk; those belong on a worker.
 */
public final class ConfigService {
  /** Nacos caps history pages at 500; config search pages get the same bound. */
  public static final int MAX_SEARCH_PAGE_SIZE = ConfigSearch.MAX_PAGE_SIZE;

  private final ConfigStore store;
  private final ConfigHistory history;
  private final ConfigWatchers watchers;
  private final ReplicatedWrites writes;
  private final ConfigValidator validator;
  private final ServerClock clock;

  ConfigService(
      ConfigStore store,
      ConfigHistory history,
      ConfigWatchers watchers,
      ReplicatedWrites writes,
      ConfigValidator validator,
      ServerClock clock) {
    this.store = store;
    this.history = history;
    this.watchers = watchers;
    this.writes = writes;
    this.validator = validator;
    this.clock = clock;
  }

  /**
   * The key of a config, checked as Nacos checks names (letters, digits and {@code _-.:}, bounded
   * lengths). {@code ""} and {@code "public"} are the public namespace.
   *
   * @throws ConfigException with {@link io.sluice.server.feature.Fault#INVALID}
   */
  public ConfigKey key(String namespace, String group, String dataId) {
    validator.checkKey(namespace, group, dataId);
    return ConfigKey.of(namespace, group, dataId);
  }

  /** Checks a namespace id as {@link #key} does; throws {@link ConfigException} if it is bad. */
  public void checkNamespace(String namespace) {
    validator.checkNamespace(namespace);
  }

  /** The largest content accepted, in UTF-8 bytes. */
  public long maxContentBytes() {
    return validator.maxContentBytes();
  }

  /** Everything stored under a key, or null, as this node has applied it (may lag in a cluster). */
  public ConfigItem find(ConfigKey key) {
    return readable().get(key);
  }

  /**
   * Everything stored under a key, or null, linearizably: the answer holds every write acknowledged
   * on any node before the call. Completes at once in standalone; in a cluster after a read
   * barrier, and fails with a {@link ConfigException} ({@code UNAVAILABLE}) on a node cut off from
   * the majority instead of answering with stale data.
   */
  public CompletableFuture<ConfigItem> read(ConfigKey key) {
    CompletableFuture<Void> barrier = writes.readBarrier(ConfigException::new);
    if (barrier.isDone() && !barrier.isCompletedExceptionally()) {
      return CompletableFuture.completedFuture(readable().get(key));
    }
    return barrier.thenApply(ignored -> readable().get(key));
  }

  /** How many configs (with a formal version) each namespace holds; kept, not counted. */
  public Map<String, Integer> countByNamespace() {
    return readable().listing().counts();
  }

  /**
   * One page of the configs matching {@code criteria}, oldest first, from the namespace's listing:
   * the unfiltered list and an exact data id and group cost the page; other filters walk the
   * namespace's configs once, already in order. Call it on a worker. Refuses a page whose contents
   * add up to more than 32 M characters.
   */
  public Page<ConfigItem> search(ConfigCriteria criteria, int pageNo, int pageSize) {
    ConfigStore store = readable();
    return ConfigSearch.search(store.listing(), store::get, criteria, pageNo, pageSize);
  }

  /** The configs of one namespace, oldest first. Walks the namespace: call it on a worker. */
  public List<ConfigItem> inNamespace(String namespace) {
    ConfigStore store = readable();
    return ConfigSearch.inNamespace(store.listing(), store::get, namespace);
  }

  /** One page of a config's history, newest first. Reads from disk: call it on a worker. */
  public Page<ConfigHistoryEntry> history(ConfigKey key, int pageNo, int pageSize) {
    return history.list(key, pageNo, pageSize);
  }

  /** One history entry by id, if kept. Reads from disk: call it on a worker. */
  public Optional<ConfigHistoryEntry> historyEntry(long id) {
    return history.get(id);
  }

  /**
   * The entry for the same config just before {@code id}, if kept. Reads from disk: call it on a
   * worker.
   */
  public Optional<ConfigHistoryEntry> previousHistoryEntry(ConfigKey key, long id) {
    return history.previous(key, id);
  }

  /** Tells {@code watcher} of every change of the config from now on, until {@link #unwatch}. */
  public void watch(ConfigKey key, ConfigWatcher watcher) {
    watchers.watch(key, watcher);
  }

  public void unwatch(ConfigKey key, ConfigWatcher watcher) {
    watchers.unwatch(key, watcher);
  }

  /** Who watches a config now (gRPC listeners, held long-polls). */
  public Set<ConfigWatcher> watchersOf(ConfigKey key) {
    return watchers.watchersOf(key);
  }

  /**
   * Publishes; the future completes with the outcome once applied. Invalid input fails the future
   * with a {@link ConfigException} before anything is written.
   */
  public CompletableFuture<ConfigOutcome> publish(ConfigPublish request) {
    try {
      validator.checkPublish(request);
    } catch (ConfigException invalid) {
      return CompletableFuture.failedFuture(invalid);
    }
    return submit(
        new Publish(
            request.key(),
            request.target(),
            request.tag(),
            request.content(),
            ContentMd5.of(request.content()),
            request.meta(),
            request.target() == ConfigTarget.BETA ? request.betaIps() : Set.of(),
            request.casMd5(),
            clock.currentTimeMillis()));
  }

  /** Removes one version of a config; {@link ConfigOutcome.Removed} says whether there was one. */
  public CompletableFuture<ConfigOutcome> remove(
      ConfigKey key, ConfigTarget target, String tag, String srcUser, String srcIp) {
    try {
      validator.checkKey(key.namespace(), key.group(), key.dataId());
    } catch (ConfigException invalid) {
      return CompletableFuture.failedFuture(invalid);
    }
    return submit(new Remove(key, target, tag, srcUser, srcIp, clock.currentTimeMillis()));
  }

  /**
   * Removes the configs whose formal version has one of the ids ({@code ?show=all} reports them),
   * as the console deletes a selection; completes with how many there were. Scans every config:
   * call it on a worker.
   */
  public CompletableFuture<Integer> removeByIds(Set<Long> ids, String srcIp) {
    List<CompletableFuture<ConfigOutcome>> removals = new ArrayList<>();
    for (ConfigItem item : ConfigSearch.withIds(readable().all(), ids)) {
      removals.add(remove(item.key(), ConfigTarget.FORMAL, null, null, srcIp));
    }
    return CompletableFuture.allOf(removals.toArray(CompletableFuture[]::new))
        .thenApply(done -> removals.size());
  }

  /**
   * The store, for a read. Every read of replicated state passes here. Reads that clients make of
   * one config ({@link #read}) pass the read barrier first; scans, searches and long-poll checks
   * read what this node has applied (in standalone that is the newest: a write is acknowledged once
   * applied; in a cluster it may lag the leader by the replication delay).
   */
  private ConfigStore readable() {
    return store;
  }

  private CompletableFuture<ConfigOutcome> submit(ConfigCommand command) {
    return writes.submit(
        ConfigStore.NAME, ConfigCommand.encode(command), ConfigOutcome.class, ConfigException::new);
  }
}
