package io.sluice.agent.governance;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.governance.DubboDirectoriesTest.Provider;
import io.sluice.agent.logging.AgentLog;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.dubbo.rpc.Invoker;
import org.apache.dubbo.rpc.cluster.directory.StaticDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The lane pick with the split of a real Dubbo directory's providers found from the directory: made
 * again whenever the registry replaces the providers (never a split of a previous list), the same
 * answers as the split looked up by the list, and lane document changes followed at once.
 */
class DubboLaneSplitsTest {
  private static final SluiceContext GRAY = SluiceContext.of(null, "gray");

  private final Provider base1 = new Provider("10.0.0.1:20880");
  private final Provider base2 = new Provider("10.0.0.2:20880");
  private final Provider gray1 = new Provider("10.0.0.3:20880", "&sluice.lane=gray");
  private final Provider gray2 = new Provider("10.0.0.4:20880", "&sluice.lane=gray");
  private final Provider blue = new Provider("10.0.0.5:20880", "&alicloud.service.tag=blue");

  private final LaneGovernance lanes = governance();

  private static LaneGovernance governance() {
    return new LaneGovernance(
        null,
        AgentLog.toStream(new PrintStream(OutputStream.nullOutputStream()), AgentLog.Level.WARN));
  }

  @AfterEach
  void clearTheThread() {
    SluiceContext.restore(null);
  }

  @Test
  void picksFromTheProvidersTheDirectoryHoldsNowAfterEveryRegistryChange() {
    StaticDirectory<Runnable> directory = directory(base1);
    assertThat(pick(null, directory)).containsExactly(base1);
    assertThat(pick(GRAY, directory)).containsExactly(base1);

    directory.notify(List.of(base1, gray1));
    assertThat(pick(GRAY, directory)).containsExactly(gray1);
    assertThat(pick(null, directory)).containsExactly(base1);

    directory.notify(List.of(base1, base2, gray2));
    assertThat(pick(GRAY, directory)).containsExactly(gray2);
    assertThat(pick(null, directory)).containsExactly(base1, base2);

    // The lane's providers gone: a gray call falls back to the base, never to gray2's old split.
    directory.notify(List.of(base2));
    assertThat(pick(GRAY, directory)).containsExactly(base2);
    assertThat(pick(null, directory)).containsExactly(base2);

    // Only lane providers left: an untagged call gets none of them.
    directory.notify(List.of(gray1, blue));
    assertThat(pick(null, directory)).isEmpty();
    assertThat(pick(GRAY, directory)).containsExactly(gray1);
  }

  @Test
  void keepsTheSplitUntilTheProvidersAreReplacedEvenByTheSameOnes() {
    StaticDirectory<Runnable> directory = directory(base1, gray1);
    SluiceContext.restore(GRAY);
    List<?> first = lanes.laneInvokers(routed(directory), directory);
    assertThat(lanes.laneInvokers(routed(directory), directory)).isSameAs(first);

    directory.notify(List.of(base1, gray1));
    List<?> again = lanes.laneInvokers(routed(directory), directory);
    assertThat(again).isNotSameAs(first);
    assertThat(new ArrayList<Object>(again)).containsExactly(gray1);
    assertThat(lanes.laneInvokers(routed(directory), directory)).isSameAs(again);
  }

  @Test
  void leavesDubbosListAloneWhenNoProviderHasATag() {
    StaticDirectory<Runnable> directory = directory(base1, base2);
    List<Object> routed = routed(directory);
    SluiceContext.restore(GRAY);
    assertThat(lanes.laneInvokers(routed, directory)).isSameAs(routed);
    SluiceContext.restore(null);
    assertThat(lanes.laneInvokers(routed, directory)).isSameAs(routed);
  }

  @Test
  void followsALaneDocumentThatSwitchesTheTagOffAndOnAgain() throws Exception {
    StaticDirectory<Runnable> directory = directory(base1, gray1);
    assertThat(pick(GRAY, directory)).containsExactly(gray1);

    lanes.apply("{\"lanes\":[{\"name\":\"a\",\"tag\":\"gray\",\"enabled\":false}]}");
    assertThat(pick(GRAY, directory)).containsExactly(base1);

    lanes.apply("{\"lanes\":[{\"name\":\"a\",\"tag\":\"gray\",\"percentage\":50}]}");
    assertThat(pick(GRAY, directory)).containsExactly(gray1);
  }

  @Test
  void answersAsTheSplitByListForEveryNarrowingOfTheRoutes() {
    LaneGovernance byList = governance();
    byList.splitsByDirectory = false;
    List<Provider> everyone = List.of(base1, base2, gray1, gray2, blue);
    Random random = new Random(7);
    for (int round = 0; round < 200; round++) {
      List<Invoker<Runnable>> providers = new ArrayList<>();
      for (Provider provider : everyone) {
        if (random.nextInt(3) > 0) {
          providers.add(provider);
        }
      }
      if (providers.isEmpty()) {
        providers.add(blue);
      }
      StaticDirectory<Runnable> directory = new StaticDirectory<>(providers);
      List<Object> routed = new ArrayList<>();
      for (Invoker<Runnable> provider : providers) {
        if (random.nextInt(4) > 0) {
          routed.add(provider);
        }
      }
      for (SluiceContext context :
          new SluiceContext[] {
            null, GRAY, SluiceContext.of(null, "blue"), SluiceContext.of(null, "green")
          }) {
        SluiceContext.restore(context);
        List<?> expected = byList.laneInvokers(List.copyOf(routed), directory);
        List<?> actual = lanes.laneInvokers(List.copyOf(routed), directory);
        assertThat(actual == null ? null : new ArrayList<Object>(actual))
            .as("providers %s, routed %s, context %s", providers, routed, context)
            .isEqualTo(expected == null ? null : new ArrayList<Object>(expected));
      }
    }
  }

  @Test
  void keepsTheSplitsOfManyDirectoriesApart() {
    int count = 3 * DubboLaneSplits.SLOTS;
    List<StaticDirectory<Runnable>> directories = new ArrayList<>();
    List<Provider> grays = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Provider gray =
          new Provider("10.1." + (i / 250) + "." + (i % 250) + ":20880", "&sluice.lane=gray");
      grays.add(gray);
      directories.add(directory(base1, gray));
    }
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < count; i++) {
        assertThat(pick(GRAY, directories.get(i))).containsExactly(grays.get(i));
        assertThat(pick(null, directories.get(i))).containsExactly(base1);
      }
    }
  }

  @Test
  void neverSendsAnUntaggedCallToALaneProviderWhileTheProvidersChange() throws Exception {
    StaticDirectory<Runnable> directory = directory(base1, gray1);
    // Every version has a tagged provider: with none, the pick returns Dubbo's routed list as it
    // is, and a list routed from an older version just before the change may hold a lane provider
    // (as it did before the per-directory splits; the registry's change races the call either way).
    List<List<Invoker<Runnable>>> versions =
        List.of(
            List.of(base1, gray1),
            List.of(base2, gray1, gray2),
            List.of(gray1, gray2),
            List.of(base1, base2, gray2));
    int threads = 4;
    ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
    CountDownLatch start = new CountDownLatch(1);
    AtomicBoolean done = new AtomicBoolean();
    try {
      Future<?> registry =
          pool.submit(
              () -> {
                start.await();
                for (int i = 0; i < 20_000; i++) {
                  directory.notify(versions.get(i % versions.size()));
                }
                done.set(true);
                return null;
              });
      List<Future<Integer>> callers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        boolean tagged = t % 2 == 1;
        callers.add(
            pool.submit(
                () -> {
                  start.await();
                  SluiceContext.restore(tagged ? GRAY : null);
                  int calls = 0;
                  try {
                    while (!done.get()) {
                      List<Object> routed = routed(directory);
                      List<?> picked = lanes.laneInvokers(routed, directory);
                      if (!tagged) {
                        // Base providers only, of whichever provider list was read.
                        assertThat(new ArrayList<Object>(picked)).doesNotContain(gray1, gray2);
                      }
                      calls++;
                    }
                  } finally {
                    SluiceContext.restore(null);
                  }
                  return calls;
                }));
      }
      start.countDown();
      registry.get(60, TimeUnit.SECONDS);
      for (Future<Integer> caller : callers) {
        assertThat(caller.get(60, TimeUnit.SECONDS)).isPositive();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private List<Object> pick(SluiceContext context, StaticDirectory<Runnable> directory) {
    SluiceContext.restore(context);
    try {
      return new ArrayList<>(lanes.laneInvokers(routed(directory), directory));
    } finally {
      SluiceContext.restore(null);
    }
  }

  /** What Dubbo's routers hand the cluster when they keep every provider: a list of its own. */
  private static List<Object> routed(StaticDirectory<Runnable> directory) {
    return new ArrayList<>(directory.getAllInvokers());
  }

  private static StaticDirectory<Runnable> directory(Provider... providers) {
    return new StaticDirectory<>(List.<Invoker<Runnable>>of(providers));
  }
}
