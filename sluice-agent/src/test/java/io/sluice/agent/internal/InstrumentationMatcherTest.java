package io.sluice.agent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.agent.instrumentation.dubbo3.DubboInstrumentation;
import io.sluice.agent.instrumentation.springwebmvc6.HandlerAdapterInstrumentation;
import io.sluice.agent.logging.AgentLog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import net.bytebuddy.description.type.TypeDescription;
import org.junit.jupiter.api.Test;

/** The muzzle-like check: an unsupported framework version is skipped, with one log line. */
class InstrumentationMatcherTest {
  private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
  private final InstrumentationMatcher matcher =
      new InstrumentationMatcher(
          new Compatibility(
              new HandlerAdapterInstrumentation(),
              AgentLog.toStream(
                  new PrintStream(logBytes, true, StandardCharsets.UTF_8), AgentLog.Level.INFO)));
  private final TypeDescription type =
      TypeDescription.ForLoadedType.of(InstrumentationMatcherTest.class);

  @Test
  void weavesWhenTheLoaderSeesEveryRequiredClass() {
    // The test class path has Spring 6 and the Jakarta servlet API.
    assertThat(matcher.compatible(type, getClass().getClassLoader())).isTrue();
    assertThat(logBytes.toString(StandardCharsets.UTF_8)).isEmpty();
  }

  @Test
  void skipsALoaderThatLacksARequiredClassAndSaysSoOnce() throws Exception {
    try (URLClassLoader bare = new URLClassLoader(new URL[0], null)) {
      assertThat(matcher.compatible(type, bare)).isFalse();
      assertThat(matcher.compatible(type, bare)).isFalse();
    }
    String log = logBytes.toString(StandardCharsets.UTF_8);
    assertThat(log).containsOnlyOnce("skipping spring-webmvc-6.0");
    assertThat(log).contains("unsupported version");
  }

  @Test
  void namesTheSupportedVersionsWhenItSkipsAnOlderDubbo() throws Exception {
    InstrumentationMatcher dubbo =
        new InstrumentationMatcher(
            new Compatibility(
                new DubboInstrumentation(),
                AgentLog.toStream(
                    new PrintStream(logBytes, true, StandardCharsets.UTF_8), AgentLog.Level.INFO)));
    // Dubbo 3.3 is on the test class path: a loader that sees it is woven.
    assertThat(dubbo.compatible(type, getClass().getClassLoader())).isTrue();
    try (URLClassLoader bare = new URLClassLoader(new URL[0], null)) {
      assertThat(dubbo.compatible(type, bare)).isFalse();
    }
    assertThat(logBytes.toString(StandardCharsets.UTF_8))
        .containsOnlyOnce("skipping dubbo-3.2")
        .contains("supported: Apache Dubbo 3.2 and 3.3), left alone");
  }
}
