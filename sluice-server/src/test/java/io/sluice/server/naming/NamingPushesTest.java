package io.sluice.server.naming;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.testing.ManualClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class NamingPushesTest {
  private final ManualClock clock = new ManualClock();
  private final ServiceRegistry registry = new ServiceRegistry(clock);
  private final RecordingScheduler pushThread = new RecordingScheduler();
  private final NamingPushes pushes = new NamingPushes(registry, pushThread, clock, 20);

  @AfterEach
  void stop() {
    pushThread.shutdownNow();
  }

  @Test
  void aChangeAfterAQuietSpellIsPushedAtOnceAndChangesRightAfterARoundWaitForTheRestOfTheDelay() {
    ServiceKey orders = ServiceKey.of("public", "G", "orders");
    ServiceKey billing = ServiceKey.of("public", "G", "billing");
    List<String> pushed = new ArrayList<>();
    registry.subscribe(orders, subscriber(pushed));
    registry.subscribe(billing, subscriber(pushed));

    pushes.accept(orders);
    assertThat(pushThread.delaysMillis).containsExactly(0L);
    pushThread.runDue();
    assertThat(pushed).containsExactly("orders");

    clock.advance(Duration.ofMillis(5));
    pushes.accept(orders);
    pushes.accept(billing);
    pushes.accept(orders);
    assertThat(pushThread.delaysMillis).as("one round, at the end of the delay").hasSize(2);
    assertThat(pushThread.delaysMillis.get(1)).isEqualTo(15L);
    clock.advance(Duration.ofMillis(15));
    pushThread.runDue();
    assertThat(pushed).containsExactlyInAnyOrder("orders", "orders", "billing");

    clock.advance(Duration.ofMillis(100));
    pushes.accept(billing);
    assertThat(pushThread.delaysMillis.get(2)).isZero();
  }

  @Test
  void aChangeToAServiceNobodyWatchesSchedulesNoRoundAndALaterSubscriberStillGetsIt() {
    registry.onChange(pushes);
    ServiceKey orders = ServiceKey.of("public", "G", "orders");
    registry.register("conn-1", orders, instance(orders, "127.0.0.5"));
    registry.register("conn-2", orders, instance(orders, "127.0.0.6"));
    assertThat(pushThread.delaysMillis).as("no push round for an unwatched service").isEmpty();

    List<String> pushed = new ArrayList<>();
    Subscriber watcher = hostsOf(pushed);
    registry.subscribe(orders, watcher);
    pushes.pushNow(orders, watcher);
    pushThread.runDue();
    assertThat(pushed).containsExactly("127.0.0.5,127.0.0.6");

    clock.advance(Duration.ofMillis(100));
    registry.register("conn-3", orders, instance(orders, "127.0.0.7"));
    assertThat(pushThread.delaysMillis).as("the snapshot, then one round").hasSize(2);
    pushThread.runDue();
    assertThat(pushed).containsExactly("127.0.0.5,127.0.0.6", "127.0.0.5,127.0.0.6,127.0.0.7");
  }

  private static Instance instance(ServiceKey service, String ip) {
    return InstanceValidator.instance(
        service, null, ip, 80, null, null, null, true, null, Map.of());
  }

  /** Records each pushed view's host addresses, sorted and joined. */
  private static Subscriber hostsOf(List<String> pushed) {
    return subscriber(
        view ->
            pushed.add(
                view.select("", false).hosts().stream()
                    .map(Instance::ip)
                    .sorted()
                    .collect(Collectors.joining(","))));
  }

  /** Records each pushed view's service name. */
  private static Subscriber subscriber(List<String> pushed) {
    return subscriber(view -> pushed.add(view.key().name()));
  }

  private static Subscriber subscriber(Consumer<ServiceView> onPush) {
    return new Subscriber() {
      @Override
      public Client client() {
        return new Client("127.0.0.1", 0, "", "", "");
      }

      @Override
      public String clusters() {
        return "";
      }

      @Override
      public void serviceChanged(ServiceView view) {
        onPush.accept(view);
      }
    };
  }

  /** Records what is scheduled and runs it only when the test says so. */
  private static final class RecordingScheduler extends ScheduledThreadPoolExecutor {
    final List<Long> delaysMillis = new ArrayList<>();
    private final Deque<Runnable> due = new ArrayDeque<>();

    RecordingScheduler() {
      super(1);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
      delaysMillis.add(unit.toMillis(delay));
      due.add(task);
      return null;
    }

    void runDue() {
      for (Runnable task; (task = due.poll()) != null; ) {
        task.run();
      }
    }
  }
}
