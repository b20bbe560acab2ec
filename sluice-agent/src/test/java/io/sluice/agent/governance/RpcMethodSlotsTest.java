package io.sluice.agent.governance;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.agent.logging.AgentLog;
import io.sluice.flow.Direction;
import io.sluice.flow.FlowRegistry;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * A Dubbo provider's methods found by the parameter-types array their invocations carry ({@link
 * RpcMethodSlots}): always the call the full lookup (class, name, overload) gives, whatever the
 * slots hold, and once settled without the full lookup and without allocating.
 */
class RpcMethodSlotsTest {
  interface Greeter {
    String hello(String name);

    String hello(String name, int times);

    String ping();

    String pong();
  }

  interface Other {
    String ping();
  }

  /** Stand for the arrays of Dubbo's method descriptors: one per method, kept for good. */
  private static final Class<?>[] HELLO = {String.class};

  private static final Class<?>[] HELLO_TIMES = {String.class, int.class};
  // Dubbo's decoder hands every no-argument call the one shared empty array.
  private static final Class<?>[] EMPTY = new Class<?>[0];

  private final FlowRegistry registry = FlowRegistry.builder().build();
  private final List<String> named = new ArrayList<>();
  private final RpcResources provider =
      new RpcResources(
          name -> {
            named.add(name);
            return new GovernedResource(
                registry.resource(name, Direction.INBOUND), CallPath.DUBBO_PROVIDER);
          },
          true);

  private static String nameOf(RpcCall call) {
    return call.method.name;
  }

  /** Calls as a provider receives them, until each has settled into its slot. */
  private void settle(Object[][] calls) {
    for (int pass = 0; pass < 3; pass++) {
      for (Object[] call : calls) {
        provider.call((Class<?>) call[0], (String) call[1], (Class<?>[]) call[2]);
      }
    }
  }

  @Test
  void findsEachOverloadByItsOwnArrayOnceItHasSettled() {
    settle(new Object[][] {{Greeter.class, "hello", HELLO}, {Greeter.class, "hello", HELLO_TIMES}});
    RpcMethodSlots slots = provider.slots();

    RpcCall one = slots.get(Greeter.class, "hello", HELLO);
    RpcCall two = slots.get(Greeter.class, "hello", HELLO_TIMES);

    assertThat(nameOf(one)).isEqualTo(Greeter.class.getName() + ":hello(java.lang.String)");
    assertThat(nameOf(two)).isEqualTo(Greeter.class.getName() + ":hello(java.lang.String,int)");
    assertThat(provider.call(Greeter.class, new String("hello"), HELLO)).isSameAs(one);
    assertThat(provider.call(Greeter.class, "hello", HELLO_TIMES)).isSameAs(two);
    assertThat(provider.callByName(Greeter.class, "hello", new Class<?>[] {String.class}))
        .isSameAs(one);
    assertThat(slots.live()).isEqualTo(2);
  }

  @Test
  void consultsTheSlotBeforeTheFullLookup() {
    settle(new Object[][] {{Greeter.class, "hello", HELLO}});
    RpcCall planted = new RpcCall(null, provider.call(Greeter.class, "hello", HELLO_TIMES).method);
    Class<?>[] array = {String.class};
    provider.slots().put(new RpcMethodSlots.Entry(array, Greeter.class, "hello", planted));

    // Only a probe of the slot can answer this (the full lookup gives hello(String)'s call).
    assertThat(provider.call(Greeter.class, "hello", array)).isSameAs(planted);
    assertThat(provider.callByName(Greeter.class, "hello", array))
        .isSameAs(provider.call(Greeter.class, "hello", HELLO));
  }

  @Test
  void tellsApartMethodsThatShareOneArrayOnOneInterfaceOrOnTwo() {
    Object[][] calls = {
      {Greeter.class, "ping", EMPTY}, {Greeter.class, "pong", EMPTY}, {Other.class, "ping", EMPTY}
    };
    for (int pass = 0; pass < 20; pass++) {
      for (Object[] call : calls) {
        RpcCall found = provider.call((Class<?>) call[0], (String) call[1], EMPTY);
        assertThat(nameOf(found)).isEqualTo(((Class<?>) call[0]).getName() + ":" + call[1] + "()");
        assertThat(found.service.name).isEqualTo(((Class<?>) call[0]).getName());
      }
    }
    assertThat(provider.slots().live()).as("one entry for the shared array").isEqualTo(1);
    assertThat(provider.slots().get(Other.class, "ping", EMPTY)).isNull();
  }

  @Test
  void neverStoresAnArrayMadeAfreshForEachCall() {
    for (int i = 0; i < 1_000; i++) {
      RpcCall found = provider.call(Greeter.class, "hello", new Class<?>[] {String.class});
      assertThat(nameOf(found)).isEqualTo(Greeter.class.getName() + ":hello(java.lang.String)");
    }

    assertThat(provider.slots().live()).isZero();
  }

  @Test
  void makesAtMostABoundedNumberOfEntriesForOneMethod() {
    // Arrays that each settle (seen twice in a row) and then are dropped for another: a method
    // reached through ever new stable arrays stops being stored after MAX_SLOT_ENTRIES.
    List<Class<?>[]> kept = new ArrayList<>();
    for (int i = 0; i < 10 * RpcResources.MAX_SLOT_ENTRIES; i++) {
      Class<?>[] array = {String.class};
      kept.add(array);
      for (int call = 0; call < 3; call++) {
        assertThat(nameOf(provider.call(Greeter.class, "hello", array)))
            .isEqualTo(Greeter.class.getName() + ":hello(java.lang.String)");
      }
    }

    int stored = 0;
    for (Class<?>[] array : kept) {
      if (provider.slots().get(Greeter.class, "hello", array) != null) {
        stored++;
      }
    }
    assertThat(stored).isBetween(1, RpcResources.MAX_SLOT_ENTRIES);
  }

  @Test
  void arraysCollidingInTheirSlotsAllResolveToTheirOwnMethod() {
    // Three arrays whose identity hashes pick the same two slots: one of them cannot stay.
    List<Class<?>[]> colliding = collidingArrays(3);
    String[] methods = {"a", "b", "c"};

    for (int pass = 0; pass < 50; pass++) {
      for (int i = 0; i < colliding.size(); i++) {
        assertThat(nameOf(provider.call(Greeter.class, methods[i], colliding.get(i))))
            .isEqualTo(Greeter.class.getName() + ":" + methods[i] + "(java.lang.String)");
      }
    }
    int found = 0;
    for (int i = 0; i < colliding.size(); i++) {
      if (provider.slots().get(Greeter.class, methods[i], colliding.get(i)) != null) {
        found++;
      }
    }
    assertThat(found).as("two slots for three arrays").isEqualTo(2);
  }

  @Test
  void aCollectedArrayLeavesNoLiveEntryAndItsMethodResolvesAsBefore() throws Exception {
    RpcCall first = provider.call(Greeter.class, "hello", HELLO);
    WeakReference<Class<?>[]> collected = settleAndForget();

    for (int i = 0; i < 100 && collected.get() != null; i++) {
      System.gc();
      Thread.sleep(10);
    }

    assertThat(collected.get()).as("the slots held the array").isNull();
    assertThat(provider.slots().live()).isZero();
    assertThat(provider.call(Greeter.class, "hello", new Class<?>[] {String.class}))
        .isSameAs(first);
  }

  private WeakReference<Class<?>[]> settleAndForget() {
    Class<?>[] array = {String.class};
    for (int i = 0; i < 3; i++) {
      provider.call(Greeter.class, "hello", array);
    }
    assertThat(provider.slots().get(Greeter.class, "hello", array)).isNotNull();
    assertThat(provider.slots().live()).isEqualTo(1);
    return new WeakReference<>(array);
  }

  @Test
  void aFullTableLeavesTheMethodUngovernedAndStoresNothing() {
    List<String> refused = new ArrayList<>();
    RpcResources full =
        new RpcResources(
            name -> {
              refused.add(name);
              return null;
            },
            true);

    for (int i = 0; i < 5; i++) {
      assertThat(full.call(Greeter.class, "hello", HELLO)).isNull();
    }

    assertThat(refused)
        .containsExactly(
            Greeter.class.getName(), Greeter.class.getName() + ":hello(java.lang.String)");
    assertThat(full.slots().live()).isZero();
  }

  @Test
  void aCallWithoutParameterTypesIsFoundByName() {
    RpcCall none = provider.call(Greeter.class, "ping", null);

    assertThat(nameOf(none)).isEqualTo(Greeter.class.getName() + ":ping()");
    assertThat(provider.call(Greeter.class, "ping", null)).isSameAs(none);
    assertThat(provider.call(Greeter.class, "ping", EMPTY)).isSameAs(none);
  }

  @Test
  void namesEachMethodOnceWhateverTheSlotsDo() {
    settle(
        new Object[][] {
          {Greeter.class, "hello", HELLO},
          {Greeter.class, "ping", EMPTY},
          {Other.class, "ping", EMPTY}
        });

    assertThat(named)
        .containsExactly(
            Greeter.class.getName(),
            Greeter.class.getName() + ":hello(java.lang.String)",
            Greeter.class.getName() + ":ping()",
            Other.class.getName(),
            Other.class.getName() + ":ping()");
  }

  @Test
  void findingASettledMethodAllocatesNothing() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long thread = Thread.currentThread().getId();
    Object[][] calls = {
      {Greeter.class, "hello", HELLO},
      {Greeter.class, "hello", HELLO_TIMES},
      {Greeter.class, "ping", EMPTY},
      {Other.class, "ping", EMPTY},
    };
    Object[] sink = new Object[calls.length];
    for (int i = 0; i < 200_000; i++) {
      Object[] call = calls[i & 3];
      sink[i & 3] = provider.call((Class<?>) call[0], (String) call[1], (Class<?>[]) call[2]);
    }

    long before = threads.getThreadAllocatedBytes(thread);
    for (int i = 0; i < 100_000; i++) {
      Object[] call = calls[i & 3];
      sink[i & 3] = provider.call((Class<?>) call[0], (String) call[1], (Class<?>[]) call[2]);
    }
    long allocated = threads.getThreadAllocatedBytes(thread) - before;

    assertThat(allocated).as("bytes allocated by 100,000 lookups").isLessThan(64 * 1024);
  }

  @Test
  void threadsLookingUpTheSameMethodsTogetherAllGetTheirOwnCalls() throws Exception {
    List<Class<?>[]> arrays = new ArrayList<>();
    Map<Class<?>[], String> expected = new HashMap<>();
    for (int i = 0; i < 2 * RpcMethodSlots.SLOTS; i++) {
      Class<?>[] array = {i % 2 == 0 ? String.class : Integer.class};
      arrays.add(array);
      expected.put(
          array,
          Greeter.class.getName()
              + ":m"
              + i
              + "("
              + (i % 2 == 0 ? "java.lang.String" : "java.lang.Integer")
              + ")");
    }
    int threads = 8;
    CountDownLatch start = new CountDownLatch(1);
    ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
    List<Thread> running = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int offset = t * 37;
      Thread thread =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  return;
                }
                for (int pass = 0; pass < 10; pass++) {
                  for (int i = 0; i < arrays.size(); i++) {
                    int index = (i + offset) % arrays.size();
                    Class<?>[] array = arrays.get(index);
                    RpcCall call = provider.call(Greeter.class, "m" + index, array);
                    if (call == null || !nameOf(call).equals(expected.get(array))) {
                      wrong.add(expected.get(array) + " -> " + call);
                    }
                  }
                }
              });
      thread.start();
      running.add(thread);
    }
    start.countDown();
    for (Thread thread : running) {
      thread.join();
    }

    assertThat(wrong).isEmpty();
    assertThat(provider.slots().live()).isPositive();
  }

  @Test
  void theGovernorWithoutSlotsLooksMethodsUpByNameOnEveryCall() throws Exception {
    FlowGovernor governor =
        new FlowGovernor(
            FlowRegistry.builder().build(),
            FlowGovernor.verdicts(429, 503, 1),
            name -> {},
            AgentLog.toStream(System.err, AgentLog.Level.WARN));
    java.lang.reflect.Field bySlot = FlowGovernor.class.getDeclaredField("methodsBySlot");
    bySlot.setAccessible(true);
    java.lang.reflect.Field tables = FlowGovernor.class.getDeclaredField("rpc");
    tables.setAccessible(true);
    RpcMethodSlots slots =
        ((RpcResources[]) tables.get(governor))[GovernanceHooks.DUBBO_PROVIDER].slots();
    Object first = governor.rpcCall(Greeter.class, "hello", HELLO, GovernanceHooks.DUBBO_PROVIDER);

    bySlot.setBoolean(governor, false);
    for (int i = 0; i < 5; i++) {
      assertThat(governor.rpcCall(Greeter.class, "hello", HELLO, GovernanceHooks.DUBBO_PROVIDER))
          .isSameAs(first);
    }
    assertThat(slots.live()).as("the benchmark's switch takes effect").isZero();

    bySlot.setBoolean(governor, true);
    for (int i = 0; i < 3; i++) {
      assertThat(governor.rpcCall(Greeter.class, "hello", HELLO, GovernanceHooks.DUBBO_PROVIDER))
          .isSameAs(first);
    }
    assertThat(slots.get(Greeter.class, "hello", HELLO)).isSameAs(first);
    assertThat(((RpcResources[]) tables.get(governor))[GovernanceHooks.DUBBO_CONSUMER].slots())
        .as("a consumer's arrays are fresh per call: no slots")
        .isNull();
  }

  /** Arrays whose identity hashes all pick the same pair of slots. */
  private static List<Class<?>[]> collidingArrays(int count) {
    Map<Integer, List<Class<?>[]>> byPair = new HashMap<>();
    for (int i = 0; ; i++) {
      Class<?>[] array = {String.class};
      int pair = (System.identityHashCode(array) & (RpcMethodSlots.SLOTS - 1)) >>> 1;
      List<Class<?>[]> same = byPair.computeIfAbsent(pair, p -> new ArrayList<>());
      same.add(array);
      if (same.size() == count) {
        return same;
      }
    }
  }
}
