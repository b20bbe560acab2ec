package io.sluice.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

class ConfigWatchersTest {
  private static final ConfigKey APP = ConfigKey.of("", "G", "app.yaml");
  private static final ConfigKey DB = ConfigKey.of("", "G", "db.yaml");

  /** The fan-out thread, run by the test: tasks wait until {@link #runAll}. */
  private final Queue<Runnable> fanoutTasks = new ArrayDeque<>();

  private final Executor fanout = fanoutTasks::add;
  private final ConfigWatchers watchers = new ConfigWatchers(fanout);

  private void runAll() {
    for (Runnable task; (task = fanoutTasks.poll()) != null; ) {
      task.run();
    }
  }

  /** A watcher that records what it was told. */
  private static class Recording implements ConfigWatcher {
    final List<ConfigKey> told = new CopyOnWriteArrayList<>();
    private final String ip;

    Recording(String ip) {
      this.ip = ip;
    }

    @Override
    public String reportedIp() {
      return ip;
    }

    @Override
    public String remoteIp() {
      return ip;
    }

    @Override
    public void changed(ConfigKey key) {
      told.add(key);
    }
  }

  @Test
  void mergesChangesOfOneConfigBeforeTheFanOutRunsIntoOneNotification() {
    Recording watcher = new Recording("10.0.0.1");
    watchers.watch(APP, watcher);

    watchers.accept(new ConfigChange(APP, Set.of()));
    watchers.accept(new ConfigChange(APP, Set.of()));
    watchers.accept(new ConfigChange(DB, Set.of()));
    assertThat(fanoutTasks).as("one drain for any number of changes").hasSize(1);
    runAll();

    assertThat(watcher.told).containsExactly(APP);
  }

  @Test
  void tellsABetaChangeOnlyToTheWatchersItConcerns() {
    Recording listed = new Recording("10.0.0.1");
    Recording other = new Recording("10.0.0.2");
    watchers.watch(APP, listed);
    watchers.watch(APP, other);

    watchers.accept(new ConfigChange(APP, Set.of("10.0.0.1")));
    runAll();
    assertThat(listed.told).containsExactly(APP);
    assertThat(other.told).isEmpty();

    // A beta change merged with a change for everyone reaches everyone.
    watchers.accept(new ConfigChange(APP, Set.of("10.0.0.1")));
    watchers.accept(new ConfigChange(APP, Set.of()));
    runAll();
    assertThat(other.told).containsExactly(APP);
  }

  @Test
  void stopsTellingAWatcherThatUnwatchedAndForgetsTheConfig() {
    Recording watcher = new Recording("10.0.0.1");
    watchers.watch(APP, watcher);
    watchers.unwatch(APP, watcher);

    watchers.accept(new ConfigChange(APP, Set.of()));
    runAll();

    assertThat(watcher.told).isEmpty();
    assertThat(watchers.watchersOf(APP)).isEmpty();
  }

  @Test
  void keepsTellingTheOthersWhenOneWatcherFails() {
    ConfigWatcher failing =
        new Recording("10.0.0.1") {
          @Override
          public void changed(ConfigKey key) {
            throw new IllegalStateException("broken watcher");
          }
        };
    Recording healthy = new Recording("10.0.0.2");
    watchers.watch(APP, failing);
    watchers.watch(APP, healthy);

    watchers.accept(new ConfigChange(APP, Set.of()));
    runAll();

    assertThat(healthy.told).containsExactly(APP);
  }
}
