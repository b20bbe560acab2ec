package io.sluice.agent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.agent.ClassFiles;
import io.sluice.agent.instrumentation.SluiceInstrumentation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.matcher.ElementMatcher;
import org.junit.jupiter.api.Test;

/**
 * Advice is referenced by class name (the agent never loads advice classes); this checks every name
 * points at a class with advice methods, so a rename cannot silently disable a hook.
 */
class InstrumentationsTest {
  @Test
  void everyAdviceNameIsAClassWithAdviceMethods() throws Exception {
    List<String> adviceNames = new ArrayList<>();
    for (SluiceInstrumentation instrumentation : AgentInstaller.allInstrumentations()) {
      instrumentation.advice(new RecordingForAdvice(adviceNames));
    }
    assertThat(adviceNames).hasSizeGreaterThanOrEqualTo(10);
    for (String name : adviceNames) {
      Class<?> advice = Class.forName(name, false, getClass().getClassLoader());
      boolean hasAdvice = false;
      for (var method : advice.getDeclaredMethods()) {
        hasAdvice |=
            method.isAnnotationPresent(Advice.OnMethodEnter.class)
                || method.isAnnotationPresent(Advice.OnMethodExit.class);
      }
      assertThat(hasAdvice).as(name).isTrue();
    }
  }

  /**
   * Advice is copied into classes of any class-file version, down to Java 6 (Apache HttpClient 4),
   * where neither invokedynamic nor method-handle constants may appear: no string concatenation
   * with {@code +}, no lambdas, no method references in advice.
   */
  @Test
  void noAdviceUsesInvokeDynamic() throws Exception {
    List<String> adviceNames = new ArrayList<>();
    for (SluiceInstrumentation instrumentation : AgentInstaller.allInstrumentations()) {
      instrumentation.advice(new RecordingForAdvice(adviceNames));
    }
    for (String name : new HashSet<>(adviceNames)) {
      byte[] bytes;
      try (var in =
          getClass().getClassLoader().getResourceAsStream(name.replace('.', '/') + ".class")) {
        bytes = in.readAllBytes();
      }
      assertThat(ClassFiles.constantTags(bytes)).as(name).doesNotContain(15, 16, 17, 18);
    }
  }

  @Test
  void instrumentationNamesAreUnique() {
    Set<String> names = new HashSet<>();
    for (SluiceInstrumentation instrumentation : AgentInstaller.allInstrumentations()) {
      assertThat(names.add(instrumentation.name())).as(instrumentation.name()).isTrue();
    }
  }

  private static final class RecordingForAdvice extends AgentBuilder.Transformer.ForAdvice {
    private final List<String> names;

    RecordingForAdvice(List<String> names) {
      this.names = names;
    }

    @Override
    public AgentBuilder.Transformer.ForAdvice advice(
        ElementMatcher<? super net.bytebuddy.description.method.MethodDescription> matcher,
        String name) {
      names.add(name);
      return this;
    }
  }
}
