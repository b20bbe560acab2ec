package io.sluice.server.config;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.config.ConfigCommand.Publish;
import io.sluice.server.config.ConfigCommand.Remove;
import io.sluice.server.config.ConfigCommand.Target;
import io.sluice.server.replication.Replicator;
import java.util.concurrent.CompletableFuture;

/**
 * The config center as the protocols see it: reads straight from memory, writes validated and then
 * replicated, acknowledged once applied (so the writer's next read sees its write).
 */
public final class ConfigService {
  private final ConfigStore store;
  private final ConfigHistory history;
  private final ConfigWatchers watchers;
  private final Replicator replicator;
  private final ConfigValidator validator;
  private final ServerClock clock;

  public ConfigService(
      ConfigStore store,
      ConfigHistory history,
      ConfigWatchers watchers,
      Replicator replicator,
      ConfigValidator validator,
      ServerClock clock) {
    this.store = store;
    this.history = history;
    this.watchers = watchers;
    this.replicator = replicator;
    this.validator = validator;
    this.clock = clock;
  }

  public ConfigItem find(ConfigKey key) {
    return store.get(key);
  }

  public ConfigStore store() {
    return store;
  }

  public ConfigHistory history() {
    return history;
  }

  public ConfigWatchers watchers() {
    return watchers;
  }

  public ConfigValidator validator() {
    return validator;
  }

  /**
   * Publishes; the future completes with the outcome once applied. Invalid input fails the future
   * with {@link InvalidConfigException} or {@link ConfigTooLargeException} before anything is
   * written.
   */
  public CompletableFuture<ConfigOutcome> publish(Publish draft) {
    try {
      validator.checkPublish(draft);
    } catch (RuntimeException invalid) {
      return CompletableFuture.failedFuture(invalid);
    }
    Publish stamped = draft.stamped(ContentMd5.of(draft.content()), clock.currentTimeMillis());
    return submit(stamped);
  }

  public CompletableFuture<ConfigOutcome> remove(
      ConfigKey key, Target target, String tag, String srcUser, String srcIp) {
    try {
      validator.checkKey(key.namespace(), key.group(), key.dataId());
    } catch (RuntimeException invalid) {
      return CompletableFuture.failedFuture(invalid);
    }
    return submit(new Remove(key, target, tag, srcUser, srcIp, clock.currentTimeMillis()));
  }

  private CompletableFuture<ConfigOutcome> submit(ConfigCommand command) {
    return replicator
        .submit(ConfigStore.NAME, ConfigCommand.encode(command))
        .thenApply(ConfigOutcome.class::cast);
  }
}
