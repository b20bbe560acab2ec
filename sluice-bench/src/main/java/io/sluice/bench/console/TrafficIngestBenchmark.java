package io.sluice.bench.console;

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
 * field, form-encoded as sluice-agent's reporter writes it (one second of {@code resources}
 * resources, the names seen left out as in 29 of 30 reports), read and stored in a {@link
 * TrafficStore} that holds 100 instances of 10 applications (each invocation is the next instance's
 * report, as the server sees them arrive). The body is copied into the reused request buffer first,
 * as the server copies it out of the connection's buffer.
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
      bodies[i] = (FIELD + formValue(report(i, resources, now))).getBytes(StandardCharsets.UTF_8);
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

  /** As TrafficReportLoad writes it: sluice-agent's reporter's JSON. */
  static String report(int agent, int resources, long now) {
    StringBuilder json = new StringBuilder(resources * 110 + 256);
    json.append("{\"app\":\"bench-app-")
        .append(agent % 10)
        .append("\",\"instance\":\"")
        .append(agent)
        .append("@bench\",\"sentAt\":")
        .append(now)
        .append(",\"dropped\":0,\"seconds\":[{\"t\":")
        .append(now / 1000 * 1000 - 1000)
        .append(",\"resources\":[");
    for (int r = 0; r < resources; r++) {
      json.append(r == 0 ? "" : ",")
          .append("{\"name\":\"GET /resource/")
          .append(r)
          .append("\",\"pass\":")
          .append(100 + r)
          .append(",\"block\":")
          .append(r % 7)
          .append(",\"failed\":0,\"rt\":1200,\"p50\":900,\"p99\":4100,\"concurrency\":2}");
    }
    return json.append("]}]}").toString();
  }

  /** As the agent encodes: only {@code % & + =} and spaces (the report is ASCII JSON). */
  static String formValue(String json) {
    return json.replace("%", "%25")
        .replace("&", "%26")
        .replace("+", "%2B")
        .replace("=", "%3D")
        .replace(' ', '+');
  }
}
