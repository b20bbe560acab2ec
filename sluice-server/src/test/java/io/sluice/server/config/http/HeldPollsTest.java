package io.sluice.server.config.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.config.ConfigFeature;
import io.sluice.server.config.ConfigKey;
import io.sluice.server.config.ConfigService;
import io.sluice.server.feature.ReplicatedWrites;
import io.sluice.server.testing.InlineReplicator;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerResponse;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HeldPollsTest {
  private final AtomicLong nanos = new AtomicLong();
  private final ServerClock clock =
      new ServerClock() {
        @Override
        public long currentTimeMillis() {
          return nanos.get() / 1_000_000;
        }

        @Override
        public long nanoTime() {
          return nanos.get();
        }
      };
  @TempDir Path historyDir;
  private final InlineReplicator replicator = new InlineReplicator(List.of());
  private ConfigFeature feature;
  private ConfigService config;
  private final Vertx vertx = Vertx.vertx();
  private final Context context = vertx.getOrCreateContext();

  /** A response that reports itself answered, so expiring polls writes nothing. */
  private final HttpServerResponse answered =
      (HttpServerResponse)
          Proxy.newProxyInstance(
              getClass().getClassLoader(),
              new Class<?>[] {HttpServerResponse.class},
              (proxy, method, args) -> method.getName().equals("ended") ? Boolean.TRUE : null);

  @BeforeEach
  void openTheConfigCenter() {
    feature =
        new ConfigFeature(
            historyDir,
            1024,
            Long.MAX_VALUE,
            Runnable::run,
            new ReplicatedWrites(replicator),
            clock);
    replicator.register(feature.state());
    config = feature.service();
  }

  @AfterEach
  void closeVertx() {
    vertx.close();
    feature.close();
    replicator.close();
  }

  private HeldPoll poll(HeldPolls polls, ConfigKey key, long deadline) {
    return new HeldPoll(
        polls, answered, context, new ConfigKey[] {key}, null, "10.0.0.1", "10.0.0.1", deadline);
  }

  @Test
  void expiresPollsInDeadlineOrderWhateverOrderTheyCameAndLeft() {
    HeldPolls polls = new HeldPolls(config, clock, 100_000);
    ConfigKey key = ConfigKey.of("", "G", "a");
    Random random = new Random(42);
    List<HeldPoll> held = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      HeldPoll poll = poll(polls, key, random.nextInt(1_000_000));
      assertThat(polls.hold(poll)).isTrue();
      held.add(poll);
    }
    Collections.shuffle(held, random);
    List<HeldPoll> released = held.subList(0, 700);
    for (HeldPoll poll : released) {
      poll.handle(null);
    }
    assertThat(polls.size()).isEqualTo(1_300);

    List<HeldPoll> kept = held.subList(700, held.size());
    int expired = 0;
    for (long now = 0; now <= 1_000_000; now += 10_000) {
      nanos.set(now);
      expired += polls.expireDue();
      long due = now;
      // Exactly the kept polls whose deadline has come are gone, and only those.
      assertThat(kept)
          .allSatisfy(poll -> assertThat(poll.isWaiting()).isEqualTo(poll.deadlineNanos > due));
      assertThat(polls.size()).isEqualTo(1_300 - expired);
    }
    assertThat(expired).isEqualTo(1_300);
    for (HeldPoll poll : held) {
      assertThat(poll.heapIndex).isEqualTo(-1);
    }
    assertThat(config.watchersOf(key)).isEmpty();
  }

  @Test
  void endsAPollOnceWhenItsConfigChangesAndDropsItsWatches() {
    HeldPolls polls = new HeldPolls(config, clock, 10);
    ConfigKey key = ConfigKey.of("", "G", "a");
    HeldPoll poll = poll(polls, key, 1_000);
    polls.hold(poll);
    assertThat(config.watchersOf(key)).containsExactly(poll);

    poll.changed(key);
    poll.changed(key);
    poll.handle(null);

    assertThat(poll.isWaiting()).isFalse();
    assertThat(polls.size()).isZero();
    assertThat(config.watchersOf(key)).isEmpty();
    nanos.set(2_000);
    assertThat(polls.expireDue()).isZero();
  }

  @Test
  void refusesToHoldMoreThanItsBound() {
    HeldPolls polls = new HeldPolls(config, clock, 2);
    ConfigKey key = ConfigKey.of("", "G", "a");

    assertThat(polls.hold(poll(polls, key, 1))).isTrue();
    assertThat(polls.hold(poll(polls, key, 2))).isTrue();
    assertThat(polls.hold(poll(polls, key, 3))).isFalse();
    assertThat(config.watchersOf(key)).hasSize(2);
  }
}
