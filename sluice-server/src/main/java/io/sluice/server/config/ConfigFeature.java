package io.sluice.server.config;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.feature.ReplicatedWrites;
import io.sluice.server.replication.ReplicatedState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The config center, put together: the store (a replicated state), its history on disk, the
 * watchers and their fan-out, the validator, and the one door to them all, {@link #service()}. The
 * server creates it, hands {@link #state()} to the replicator and the door to the protocols.
 */
public final class ConfigFeature implements AutoCloseable {
  /** History segments roll at this size (or after a day). */
  public static final long HISTORY_SEGMENT_BYTES = 64L * 1024 * 1024;

  private final ConfigHistory history;
  private final ConfigStore store;
  private final ConfigService service;

  /**
   * @param historyDir where history segments live (created if missing)
   * @param fanout the one thread that tells watchers of changes
   */
  public ConfigFeature(
      Path historyDir,
      long maxContentBytes,
      long maxTotalContentBytes,
      Executor fanout,
      ReplicatedWrites writes,
      ServerClock clock) {
    this.history = ConfigHistory.open(historyDir, HISTORY_SEGMENT_BYTES);
    ConfigWatchers watchers = new ConfigWatchers(fanout);
    this.store = new ConfigStore(history, watchers, maxTotalContentBytes);
    this.service =
        new ConfigService(
            store, history, watchers, writes, new ConfigValidator(maxContentBytes), clock);
  }

  /** The door. */
  public ConfigService service() {
    return service;
  }

  /** What the replicator applies the config center's commands to. */
  public ReplicatedState state() {
    return store;
  }

  /** Drops history older than {@code retention}, checked every hour on {@code scheduler}. */
  public void purgeHistory(
      ScheduledExecutorService scheduler, ServerClock clock, Duration retention) {
    scheduler.scheduleWithFixedDelay(
        () -> history.purgeOlderThan(clock.currentTimeMillis() - retention.toMillis()),
        1,
        60,
        TimeUnit.MINUTES);
  }

  @Override
  public void close() {
    history.close();
  }
}
