package io.sluice.agent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.agent.instrumentation.executors.ExecutorsInstrumentation;
import io.sluice.agent.logging.AgentLog;
import java.lang.instrument.ClassFileTransformer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The weaving transformer with a stand-in for Byte Buddy (which appends a byte): classes no
 * instrumentation names pass untouched; a named class waits until the weaver is built; what the
 * weaver makes is cached, and a later start takes it from the cache without building a weaver.
 */
class WeavingTransformerTest {
  private static final String POOL = "java/util/concurrent/ThreadPoolExecutor";
  private static final byte[] ORIGINAL = {1, 2, 3};

  @TempDir Path root;

  private final AgentLog log = AgentLog.toStream(System.err, AgentLog.Level.WARN);
  private final AtomicInteger weaversBuilt = new AtomicInteger();
  private final AtomicInteger misses = new AtomicInteger();

  private WeavingTransformer transformer(WovenClassCache cache) {
    ClassFileTransformer appendsOne =
        new ClassFileTransformer() {
          @Override
          public byte[] transform(
              Module module,
              ClassLoader loader,
              String name,
              Class<?> redefined,
              java.security.ProtectionDomain domain,
              byte[] bytes) {
            byte[] out = java.util.Arrays.copyOf(bytes, bytes.length + 1);
            out[bytes.length] = 42;
            return out;
          }
        };
    return new WeavingTransformer(
        List.of(new Compatibility(new ExecutorsInstrumentation(), log)),
        cache,
        () -> {
          weaversBuilt.incrementAndGet();
          return appendsOne;
        },
        misses::incrementAndGet,
        module -> {},
        log);
  }

  @Test
  void leavesClassesNoInstrumentationNamesAlone() throws Exception {
    WeavingTransformer transformer = transformer(WovenClassCache.open(root, "k", log));
    assertThat(transformer.transform(null, null, "java/lang/String", null, null, ORIGINAL))
        .isNull();
    assertThat(misses).hasValue(0);
  }

  @Test
  void weavesOnceTheWeaverIsBuiltAndAStartAfterThatTakesTheWovenFormFromTheCache()
      throws Exception {
    WovenClassCache cache = WovenClassCache.open(root, "k", log);
    WeavingTransformer first = transformer(cache);

    assertThat(first.transform(null, null, POOL, null, null, ORIGINAL)).isNull();
    assertThat(misses).hasValue(1);
    assertThat(first.takeWaiting()).containsExactly("java.util.concurrent.ThreadPoolExecutor");
    first.ensureByteBuddy();
    assertThat(first.transform(null, null, POOL, null, null, ORIGINAL))
        .containsExactly(1, 2, 3, 42);

    WeavingTransformer next = transformer(WovenClassCache.open(root, "k", log));
    assertThat(next.transform(null, null, POOL, null, null, ORIGINAL)).containsExactly(1, 2, 3, 42);
    assertThat(next.wovenFromCache()).isEqualTo(1);
    assertThat(next.byteBuddyReady()).isFalse();
    assertThat(weaversBuilt).hasValue(1);
    // Other original bytes (another JDK) are another entry: woven again.
    assertThat(next.transform(null, null, POOL, null, null, new byte[] {9})).isNull();
  }

  @Test
  void keepsOnlyTheCacheOfTheCurrentAgentJar() throws Exception {
    WovenClassCache old = WovenClassCache.open(root, "old", log);
    old.put("a.B", "x", ORIGINAL, ORIGINAL);
    assertThat(Files.exists(root.resolve("old"))).isTrue();

    WovenClassCache current = WovenClassCache.open(root, "new", log);

    assertThat(Files.exists(root.resolve("old"))).isFalse();
    assertThat(current.get("a.B", "x", ORIGINAL)).isNull();
  }

  @Test
  void keysEntriesByTheInstrumentationsApplied() {
    WovenClassCache cache = WovenClassCache.open(root, "k", log);
    cache.put("a.B", "one", ORIGINAL, new byte[] {7});
    assertThat(cache.get("a.B", "one", ORIGINAL)).containsExactly(7);
    assertThat(cache.get("a.B", "one,two", ORIGINAL)).isNull();
  }
}
