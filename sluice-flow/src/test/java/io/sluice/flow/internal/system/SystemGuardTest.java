package io.sluice.flow.internal.system;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.flow.SystemLoadSource;
import io.sluice.flow.internal.rule.SystemRuleSpec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SystemGuardTest {

  private static final long MS = 1_000_000L;
  private static final long SECOND = 1000 * MS;

  /** Fixed readings a test can change. */
  static final class FixedLoad implements SystemLoadSource {
    volatile double cpu = -1;
    volatile double load = -1;

    @Override
    public double cpuUsage() {
      return cpu;
    }

    @Override
    public double loadAverage() {
      return load;
    }
  }

  private final InboundTraffic traffic = new InboundTraffic();
  private final FixedLoad source = new FixedLoad();

  private SystemGuard guard(SystemRuleSpec... rules) {
    return SystemGuard.of(List.of(rules), null, traffic, source, null);
  }

  @Test
  void takesTheStrictestValueOfEachThresholdAcrossRules() {
    SystemGuard g =
        guard(new SystemRuleSpec(8, -1, 100, -1, -1), new SystemRuleSpec(-1, 0.7, 50, -1, 10));
    assertThat(g.merged()).isEqualTo(new SystemRuleSpec(8, 0.7, 50, -1, 10));
    assertThat(
            SystemGuard.of(
                List.of(new SystemRuleSpec(-1, -1, -1, -1, -1)), null, traffic, source, null))
        .isNull();
  }

  @Test
  void limitsInboundQpsExactlyInAnySlidingSecond() {
    SystemGuard g = guard(new SystemRuleSpec(-1, -1, 5, -1, -1));
    int admitted = 0;
    for (int i = 0; i < 10; i++) {
      if (g.tryEnter(SECOND + 999 * MS) == SystemGuard.PASS) {
        admitted++;
        traffic.complete(0, false);
      }
    }
    assertThat(admitted).isEqualTo(5);
    assertThat(g.tryEnter(2 * SECOND + 500 * MS)).isEqualTo(SystemGuard.BLOCKED_QPS);
    assertThat(g.tryEnter(2 * SECOND + 999 * MS + 2_000)).isEqualTo(SystemGuard.PASS);
  }

  @Test
  void capsInboundConcurrencyExactly() {
    SystemGuard g = guard(new SystemRuleSpec(-1, -1, -1, -1, 3));
    assertThat(g.tryEnter(SECOND)).isEqualTo(SystemGuard.PASS);
    assertThat(g.tryEnter(SECOND)).isEqualTo(SystemGuard.PASS);
    assertThat(g.tryEnter(SECOND)).isEqualTo(SystemGuard.PASS);
    assertThat(g.tryEnter(SECOND)).isEqualTo(SystemGuard.BLOCKED_THREAD);
    assertThat(traffic.concurrency()).isEqualTo(3);
    traffic.complete(MS, false);
    assertThat(g.tryEnter(SECOND)).isEqualTo(SystemGuard.PASS);
  }

  @Test
  void reducesAdmissionInProportionToTheCpuOvershootInsteadOfSwitchingOff() {
    SystemGuard g = guard(new SystemRuleSpec(-1, 0.8, -1, -1, -1));
    // The plant: CPU use is proportional to the admitted share; all traffic would need 120 %.
    double demand = 1.2;
    List<Double> ratios = new ArrayList<>();
    List<Double> cpus = new ArrayList<>();
    for (int s = 0; s < 20; s++) {
      double cpu = Math.min(1.0, demand * g.admissionRatio());
      source.cpu = cpu;
      cpus.add(cpu);
      g.sample(s * SECOND);
      ratios.add(g.admissionRatio());
    }
    // Never Sentinel's all-or-nothing: admission never drops below a third, never back to all.
    assertThat(ratios).allMatch(r -> r > 0.3 && r < 1.0);
    // It settles where CPU meets the threshold (0.8 / 1.2 = two thirds of the traffic).
    assertThat(ratios.get(ratios.size() - 1)).isBetween(0.64, 0.70);
    assertThat(cpus.get(cpus.size() - 1)).isBetween(0.76, 0.84);
  }

  @Test
  void letsTheAdmittedShareThroughEvenly() {
    SystemGuard g = guard(new SystemRuleSpec(-1, 0.5, -1, -1, -1));
    source.cpu = 1.0;
    g.sample(SECOND); // ratio 0.5
    assertThat(g.admissionRatio()).isEqualTo(0.5);
    StringBuilder pattern = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      int outcome = g.tryEnter(SECOND + MS);
      pattern.append(outcome == SystemGuard.PASS ? 'P' : 'B');
      if (outcome == SystemGuard.PASS) {
        traffic.complete(0, false);
      } else {
        assertThat(outcome).isEqualTo(SystemGuard.BLOCKED_CPU);
      }
    }
    assertThat(pattern.toString()).isIn("PBPBPBPB", "BPBPBPBP");
  }

  @Test
  void recoversGraduallyWhenTheCpuFallsBelowTheThreshold() {
    SystemGuard g = guard(new SystemRuleSpec(-1, 0.8, -1, -1, -1));
    source.cpu = 1.0;
    for (int s = 0; s < 5; s++) {
      g.sample(s * SECOND);
    }
    double low = g.admissionRatio();
    source.cpu = 0.4;
    g.sample(5 * SECOND);
    double next = g.admissionRatio();
    assertThat(next).isGreaterThan(low).isLessThanOrEqualTo(low * 2);
    for (int s = 6; s < 15; s++) {
      g.sample(s * SECOND);
    }
    assertThat(g.admissionRatio()).isEqualTo(1.0);
  }

  @Test
  void reducesAdmissionWhenTheAverageInboundRtExceedsTheThreshold() {
    SystemGuard g = guard(new SystemRuleSpec(-1, -1, -1, 50, -1));
    long t = 10 * SECOND;
    for (int i = 0; i < 20; i++) {
      assertThat(g.tryEnter(t)).isEqualTo(SystemGuard.PASS);
      g.recordPass(t);
      traffic.complete(100 * MS, false);
    }
    g.sample(t + SECOND);
    assertThat(g.admissionRatio()).isEqualTo(0.5);
    int blocked = 0;
    for (int i = 0; i < 10; i++) {
      int outcome = g.tryEnter(t + SECOND + MS);
      if (outcome == SystemGuard.BLOCKED_RT) {
        blocked++;
      } else {
        traffic.complete(0, false);
      }
    }
    assertThat(blocked).isEqualTo(5);
  }

  @Test
  void capsConcurrencyAtTheMeasuredCapacityWhileTheLoadIsHigh() {
    SystemGuard g = guard(new SystemRuleSpec(4.0, -1, -1, -1, -1));
    long t = 10 * SECOND;
    // Capacity: 100 completions in one 100 ms tick (1,000/s) at a minimum RT of about 4 ms = 4.
    for (int i = 0; i < 100; i++) {
      g.tryEnter(t);
      g.recordPass(t);
      traffic.complete(4 * MS, false);
    }
    source.load = 2.0;
    g.sample(t + SECOND);
    for (int i = 0; i < 10; i++) {
      assertThat(g.tryEnter(t + SECOND)).isEqualTo(SystemGuard.PASS);
    }
    source.load = 9.0;
    g.sample(t + SECOND + 1);
    int inFlight = 10;
    for (int i = 0; i < inFlight; i++) {
      traffic.complete(4 * MS, false);
    }
    int admitted = 0;
    for (int i = 0; i < 10; i++) {
      if (g.tryEnter(t + SECOND + 2) == SystemGuard.PASS) {
        admitted++;
      }
    }
    assertThat(admitted).isBetween(3, 4);
  }
}
