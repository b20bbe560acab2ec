package io.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.locks.LockSupport;
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
  void countsEachReturnFromABlockingWaitAsAWakeUp() throws InterruptedException {
    ProcessProbe.Sample before = ProcessProbe.self().sample();
    // A thread started after the first reading counts from zero; each sleep blocks and wakes once.
    Thread sleeper =
        new Thread(
            () -> {
              for (int i = 0; i < 50; i++) {
                LockSupport.parkNanos(1_000_000);
              }
            });
    sleeper.start();
    Thread.sleep(30);
    ProcessProbe.Sample after = ProcessProbe.self().sample(); // the sleeper is alive: counted
    sleeper.join();

    assertThat(after.wakeupsSince(before)).isGreaterThanOrEqualTo(10);
    assertThat(before.wakeupsSince(before)).isZero();
  }

  @Test
  void readsAProcessThatIsNotThereAsUnknown() {
    ProcessProbe.Sample gone = new ProcessProbe(Long.MAX_VALUE).sample();

    assertThat(gone.cpuNanos()).isEqualTo(-1);
    assertThat(gone.jitNanos()).isEqualTo(-1);
    assertThat(gone.jitSecondsSince(gone)).isNaN();
    assertThat(gone.wakeupsSince(gone)).isEqualTo(-1);
  }
}
