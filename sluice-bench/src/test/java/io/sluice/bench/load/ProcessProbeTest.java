package io.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProcessProbeTest {
  @Test
  void readsTheCompilerThreadsCpuAsPartOfTheProcessCpu() {
    ProcessProbe.Sample before = ProcessProbe.self().sample();
    long sum = 0;
    // Enough calls of one small method for the JIT to compile it (C1, then C2).
    for (int i = 0; i < 5_000_000; i++) {
      sum += Integer.toString(i).hashCode();
    }
    ProcessProbe.Sample after = ProcessProbe.self().sample();

    assertThat(sum).isNotZero();
    // This JVM has compiled since it started (the test framework alone), at clock-tick precision.
    assertThat(after.jitNanos()).isPositive().isLessThanOrEqualTo(after.cpuNanos());
    assertThat(after.jitSecondsSince(before)).isBetween(0.0, after.cpuSecondsSince(before));
  }

  @Test
  void readsAProcessThatIsNotThereAsUnknown() {
    ProcessProbe.Sample gone = new ProcessProbe(Long.MAX_VALUE).sample();

    assertThat(gone.cpuNanos()).isEqualTo(-1);
    assertThat(gone.jitNanos()).isEqualTo(-1);
    assertThat(gone.jitSecondsSince(gone)).isNaN();
  }
}
