package io.sluice.bench.flow;

import com.alibaba.csp.sentinel.Entry;
import com.alibaba.csp.sentinel.SphU;
import com.alibaba.csp.sentinel.slots.block.BlockException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.sluice.flow.Direction;
import io.sluice.flow.FlowRegistry;
import io.sluice.flow.Resource;
import io.sluice.flow.RuleKind;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * 1,000 resources, each with one QPS rule never reached, called round-robin by one thread: the cost
 * when per-resource state no longer sits in the nearest caches.
 *
 * <p>{@code java -jar sluice-bench/target/benchmarks.jar 'io.sluice.bench.flow.ManyResources' -prof
 * gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Dcsp.sentinel.log.dir=target/sentinel-logs")
public class ManyResourcesBenchmark {

  static final int RESOURCES = 1000;
  static final int NEVER_REACHED = 1_000_000_000;

  static List<String> names() {
    List<String> names = new ArrayList<>(RESOURCES);
    for (int i = 0; i < RESOURCES; i++) {
      names.add("GET /api/resource-" + i + "/{id}");
    }
    return names;
  }

  @State(Scope.Thread)
  public static class Sluice {
    Resource[] resources;
    int next;

    @Setup
    public void setUp() {
      FlowRegistry registry = SluiceSetup.registry(false);
      StringBuilder json = new StringBuilder("[");
      for (String name : names()) {
        json.append(json.length() > 1 ? "," : "")
            .append("{\"resource\":\"")
            .append(name)
            .append("\",\"count\":")
            .append(NEVER_REACHED)
            .append('}');
      }
      registry.load(RuleKind.FLOW, json.append(']').toString());
      resources = new Resource[RESOURCES];
      for (int i = 0; i < RESOURCES; i++) {
        resources[i] = registry.resource(names().get(i), Direction.INBOUND);
      }
    }
  }

  @State(Scope.Thread)
  public static class Sentinel {
    String[] names;
    int next;

    @Setup
    public void setUp() {
      SentinelSetup.qpsRules(names(), NEVER_REACHED);
      names = names().toArray(new String[0]);
    }
  }

  @State(Scope.Thread)
  public static class Resilience4j {
    RateLimiter[] rateLimiters;
    CircuitBreaker[] breakers;
    int next;

    @Setup
    public void setUp() {
      rateLimiters = new RateLimiter[RESOURCES];
      breakers = new CircuitBreaker[RESOURCES];
      for (int i = 0; i < RESOURCES; i++) {
        rateLimiters[i] = Resilience4jSetup.rateLimiter("rl-" + i, NEVER_REACHED);
        breakers[i] = Resilience4jSetup.circuitBreaker("cb-" + i);
      }
    }
  }

  @Benchmark
  public long sluice(Sluice s) {
    Resource resource = s.resources[s.next];
    s.next = s.next + 1 == RESOURCES ? 0 : s.next + 1;
    long permit = resource.tryAcquire();
    resource.release(permit);
    return permit;
  }

  @Benchmark
  public Object sentinel(Sentinel s) throws BlockException {
    String name = s.names[s.next];
    s.next = s.next + 1 == RESOURCES ? 0 : s.next + 1;
    Entry entry = SphU.entry(name);
    entry.exit();
    return entry;
  }

  @Benchmark
  public boolean resilience4j(Resilience4j s) {
    int i = s.next;
    s.next = i + 1 == RESOURCES ? 0 : i + 1;
    return s.rateLimiters[i].acquirePermission()
        && Resilience4jSetup.callThroughBreaker(s.breakers[i]);
  }
}
