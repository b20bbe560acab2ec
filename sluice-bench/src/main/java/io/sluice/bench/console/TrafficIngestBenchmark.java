package io.sluice.bench.console;

import io.sluice.bench.load.TrafficReportLoad;
import io.sluice.server.clock.ServerClock;
import io.sluice.server.protocol.http.FormValue;
import io.sluice.server.traffic.TrafficStore;
import io.sluice.server.traffic.http.TrafficIngest;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What taking one agent's traffic report costs the server past HTTP: the body's {@code report}
 * field, form-encoded as sluice-agent's reporter writes it ({@link TrafficReportLoad}'s reports)
 * (one second of {@code resources} resources, the names seen left out as in 29 of 30 reports), read
 * and stored in a {@link TrafficStore} that holds 100 instances of 10 applications (each invocation
 * is the next instance's report, as the server sees them arrive). The body is copied into the
 * reused request buffer first, as the server copies it out of the connection's buffer.
 *
 * <p>{@code java -jar sluice-bench/target/benchmarks.jar TrafficIngestBenchmark -prof gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class TrafficIngestBenchmark {
  private static final int INSTANCES = 100;
  private static final String FIELD = "report=";

  @Param({"200"})
  int resources;

  private final byte[][] bodies = new byte[INSTANCES][];
  private byte[] request;
  private TrafficStore store;
  private TrafficIngest ingest;
  private int next;

  @Setup
  public void setUp() {
    store = new TrafficStore(ServerClock.SYSTEM);
    ingest = new TrafficIngest(store);
    long now = System.currentTimeMillis();
    int longest = 0;
    for (int i = 0; i < INSTANCES; i++) {
      String json = TrafficReportLoad.reportJson(i, resources, false, now);
      bodies[i] = (FIELD + TrafficReportLoad.formValue(json)).getBytes(StandardCharsets.UTF_8);
      longest = Math.max(longest, bodies[i].length);
    }
    request = new byte[longest];
    for (int i = 0; i < INSTANCES; i++) {
      ingestNext();
    }
  }

  @Benchmark
  public int ingestOneReport() {
    return ingestNext();
  }

  private int ingestNext() {
    byte[] body = bodies[next];
    next = (next + 1) % INSTANCES;
    System.arraycopy(body, 0, request, 0, body.length);
    ingest.accept(FormValue.encoded(request, FIELD.length(), body.length));
    return body.length;
  }
}
