package io.sluice.bench.load;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What agents' traffic reports cost a running sluice-server: {@code agents} simulated agents (ten
 * applications) each post one report of {@code resources} resources a second, spread evenly over
 * the second, as the agent's reporter does (the names seen every 30 s, HTTP/1.1); after a warm-up,
 * prints the server's CPU per second (from /proc), the heap the traffic store holds (used heap
 * after a full GC, before and after, read from the server's own Prometheus endpoint), RSS and the
 * series held. "% of one core" is the whole server process's CPU (user + system, all threads, from
 * /proc) over the measured seconds; the same server's idle CPU, measured for {@value #IDLE_SECONDS}
 * s before the load starts, is printed beside it and subtracted in "added by the reports", which is
 * what the reports themselves cost.
 *
 * <pre>
 * taskset -c 0 bin/sluice server --port 28848 --data-dir /tmp/tr &amp;  PID=$!
 * taskset -c 1 java -cp sluice-bench/target/benchmarks.jar io.sluice.bench.load.TrafficReportLoad \
 *     127.0.0.1:28848 $PID 100 200 60
 * </pre>
 *
 * Arguments: server address (HTTP port), server PID, agents, resources per report, seconds to
 * measure (after 15 s of warm-up). Needs {@code jcmd} on the path for the full GCs.
 */
public final class TrafficReportLoad {
  private static final int WARMUP_SECONDS = 15;
  private static final int IDLE_SECONDS = 10;
  private static final Pattern HEAP =
      Pattern.compile("^jvm_memory_bytes_used\\{area=\"heap\"\\} (\\S+)$", Pattern.MULTILINE);
  private static final Pattern SERIES =
      Pattern.compile("^sluice_traffic_series (\\S+)$", Pattern.MULTILINE);

  private static final java.util.concurrent.atomic.AtomicReference<String> FIRST_FAILURE =
      new java.util.concurrent.atomic.AtomicReference<>();

  private TrafficReportLoad() {}

  public static void main(String[] args) throws Exception {
    String base = "http://" + args[0];
    long pid = Long.parseLong(args[1]);
    int agents = Integer.parseInt(args[2]);
    int resources = Integer.parseInt(args[3]);
    int seconds = Integer.parseInt(args[4]);
    ProcessProbe probe = new ProcessProbe(pid);
    // HTTP/1.1, as the agents send; connections are pooled by the client.
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    double heapBefore = heapAfterGc(http, base, pid);
    ProcessProbe.Sample idleFrom = probe.sample();
    TimeUnit.SECONDS.sleep(IDLE_SECONDS);
    double idleShare = probe.sample().cpuSecondsSince(idleFrom) / IDLE_SECONDS;
    Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
    long start = System.nanoTime();
    long periodNanos = TimeUnit.SECONDS.toNanos(1) / agents;
    ProcessProbe.Sample measuredFrom = null;
    long reportsSent = 0;
    for (long n = 0; ; n++) {
      long due = start + n * periodNanos;
      long wait = due - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      long elapsedSeconds = (System.nanoTime() - start) / 1_000_000_000L;
      if (measuredFrom == null && elapsedSeconds >= WARMUP_SECONDS) {
        measuredFrom = probe.sample();
        reportsSent = 0;
      }
      if (elapsedSeconds >= WARMUP_SECONDS + seconds) {
        break;
      }
      int agent = (int) (n % agents);
      // As the agent: the names seen go every 30 s (they did not change meanwhile).
      boolean withSeen = (n / agents) % 30 == 0;
      http.sendAsync(
              report(base, agent, resources, withSeen), HttpResponse.BodyHandlers.discarding())
          .whenComplete(
              (r, e) -> {
                if (e != null && FIRST_FAILURE.compareAndSet(null, e.toString())) {
                  System.out.println("first failed report: " + e);
                }
                statuses
                    .computeIfAbsent(e == null ? r.statusCode() : -1, s -> new AtomicInteger())
                    .incrementAndGet();
              });
      reportsSent++;
    }
    ProcessProbe.Sample measuredTo = probe.sample();
    double cpu = measuredTo.cpuSecondsSince(measuredFrom);
    String metrics = scrape(http, base);
    double heapAfter = heapAfterGc(http, base, pid);
    System.out.printf(
        Locale.ROOT,
        "traffic reports: %d agents x %d resources, %d reports over %d s (%s); server CPU %.3f s"
            + " = %.1f %% of one core (idle before the load %.1f %%; added by the reports %.1f %%,"
            + " %.0f us per report), %.0f us per report in all; heap held after GC %.1f MiB"
            + " (before %.1f MiB); RSS %.1f MiB; series %s%n",
        agents,
        resources,
        reportsSent,
        seconds,
        statuses,
        cpu,
        100 * cpu / seconds,
        100 * idleShare,
        100 * (cpu / seconds - idleShare),
        (cpu - idleShare * seconds) * 1e6 / Math.max(1, reportsSent),
        cpu * 1e6 / Math.max(1, reportsSent),
        (heapAfter - heapBefore) / (1 << 20),
        heapBefore / (1 << 20),
        measuredTo.rssBytes() / (double) (1 << 20),
        first(SERIES, metrics));
  }

  private static HttpRequest report(String base, int agent, int resources, boolean withSeen) {
    String json = reportJson(agent, resources, withSeen, System.currentTimeMillis());
    return HttpRequest.newBuilder(URI.create(base + "/nacos/v1/sluice/traffic"))
        .timeout(Duration.ofSeconds(10))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("report=" + formValue(json)))
        .build();
  }

  /**
   * Agent {@code agent}'s report (of application {@code bench-app-<agent % 10>}) of the second
   * before {@code now}, as sluice-agent's reporter writes its JSON.
   */
  public static String reportJson(int agent, int resources, boolean withSeen, long now) {
    StringBuilder json = new StringBuilder(resources * 110 + 256);
    json.append("{\"app\":\"bench-app-")
        .append(agent % 10)
        .append("\",\"instance\":\"")
        .append(agent)
        .append("@bench\",\"sentAt\":")
        .append(now)
        .append(",\"dropped\":0");
    if (withSeen) {
      json.append(",\"seen\":[");
      for (int r = 0; r < resources; r++) {
        json.append(r == 0 ? "" : ",")
            .append("{\"name\":\"GET /resource/")
            .append(r)
            .append("\",\"kind\":\"Spring MVC route\"}");
      }
      json.append(']');
    }
    json.append(",\"seconds\":[{\"t\":")
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
  public static String formValue(String json) {
    return json.replace("%", "%25")
        .replace("&", "%26")
        .replace("+", "%2B")
        .replace("=", "%3D")
        .replace(' ', '+');
  }

  private static double heapAfterGc(HttpClient http, String base, long pid) throws Exception {
    Process gc = new ProcessBuilder("jcmd", Long.toString(pid), "GC.run").inheritIO().start();
    gc.waitFor(60, TimeUnit.SECONDS);
    Thread.sleep(500);
    return Double.parseDouble(first(HEAP, scrape(http, base)));
  }

  private static String scrape(HttpClient http, String base) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create(base + "/nacos/actuator/prometheus")).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static String first(Pattern pattern, String text) {
    Matcher m = pattern.matcher(text);
    return m.find() ? m.group(1) : "NaN";
  }
}
