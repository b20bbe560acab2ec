package io.sluice.bench.console;

import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.testing.FreePorts;
import io.sluice.server.testing.HeadlessChromium;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.openqa.selenium.JavascriptExecutor;

/**
 * How long the console's pages take to show their data in headless Chromium (Debian's, as the
 * browser tests use) when the server holds {@code configs} configs and {@code services} services.
 * Each page is loaded fresh (through {@code about:blank}) {@code rounds} times after two warm-up
 * loads. The time is taken in the page, on its own clock: from the start of the navigation until
 * the frame after the page's table holds its data (a script waits for it with a {@code
 * MutationObserver}), so WebDriver's round trips and polling are not in it. Beside it, from the
 * page's resource timings: when the last API answer had arrived, and the longest API call (the
 * server's time plus the transfer). Prints the median, minimum and maximum per page, and medians of
 * the parts. The server runs in this JVM, started on a free port over a temporary data directory.
 *
 * <p>An earlier version timed the page around Selenium's {@code WebDriverWait}, which polls every
 * 500 ms: a page whose data arrived just after the first check counted half a second more.
 *
 * <pre>
 * java -cp sluice-bench/target/benchmarks.jar io.sluice.bench.console.ConsolePageLoad 10000 10000 15
 * </pre>
 */
public final class ConsolePageLoad {
  private static final int WRITERS = 4;

  /**
   * Waits in the page until {@code selector} matches at least {@code atLeast} elements (one of them
   * holding {@code text}, unless empty), then a frame more, and answers the page's timings.
   */
  private static final String WAIT_FOR_DATA =
      """
      const [selector, atLeast, text, done] = arguments;
      const ready = () => {
        const found = document.querySelectorAll(selector);
        return found.length >= atLeast
            && (!text || [...found].some(e => e.textContent.includes(text)));
      };
      const finish = () => requestAnimationFrame(() => setTimeout(() => {
        const shown = performance.now();
        const calls = performance.getEntriesByType('resource')
            .filter(e => /\\/nacos\\/v[12]\\//.test(e.name));
        done({
          shown,
          apiEnd: Math.max(0, ...calls.map(e => e.responseEnd)),
          apiLongest: Math.max(0, ...calls.map(e => e.duration)),
          calls: calls.length,
        });
      }));
      if (ready()) {
        finish();
      } else {
        const watch = new MutationObserver(() => {
          if (ready()) {
            watch.disconnect();
            finish();
          }
        });
        watch.observe(document.body, { childList: true, subtree: true, characterData: true });
      }
      """;

  private ConsolePageLoad() {}

  /** One page: where it is and what shows that its data arrived. */
  private record Page(String name, String hash, String selector, int atLeast, String text) {}

  public static void main(String[] args) throws Exception {
    int configs = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int services = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 15;
    Path dataDir = Files.createTempDirectory("sluice-console-load-");
    try (SluiceServer server = FreePorts.startServer(ServerOptions.builder().dataDir(dataDir))) {
      if (!server.awaitReady(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the server did not start");
      }
      String base = server.httpAddress();
      long filling = System.nanoTime();
      fill(base, configs, services);
      System.out.printf(
          Locale.ROOT,
          "filled %d configs and %d services in %.1f s; load %s%n",
          configs,
          services,
          (System.nanoTime() - filling) / 1e9,
          loadAverage());

      List<Page> pages =
          List.of(
              new Page("configs", "#/configs", "[data-test='config-row']", 20, ""),
              new Page("services", "#/services", "[data-test='service-row']", 20, ""),
              new Page(
                  "service", "#/service?name=svc-00000", "[data-test='subscriber-count']", 1, ""),
              new Page("cluster", "#/cluster", "[data-test='node-row']", 1, ""),
              new Page("lanes", "#/lanes", "[data-test='rules-status']", 1, "Stored as"));
      try (HeadlessChromium browser = HeadlessChromium.start()) {
        browser.driver().manage().timeouts().scriptTimeout(Duration.ofSeconds(20));
        System.out.printf(
            Locale.ROOT,
            "%-10s %8s %8s %8s %12s %12s %8s  (ms, %d loads)%n",
            "page",
            "median",
            "min",
            "max",
            "api done",
            "api longest",
            "calls",
            rounds);
        for (Page page : pages) {
          List<Double> shown = new ArrayList<>();
          List<Double> apiEnd = new ArrayList<>();
          List<Double> apiLongest = new ArrayList<>();
          long calls = 0;
          for (int i = 0; i < rounds + 2; i++) {
            browser.open("about:blank");
            browser.open(base + "/nacos/" + page.hash());
            @SuppressWarnings("unchecked")
            Map<String, Object> t =
                (Map<String, Object>)
                    ((JavascriptExecutor) browser.driver())
                        .executeAsyncScript(
                            WAIT_FOR_DATA, page.selector(), page.atLeast(), page.text());
            if (i >= 2) {
              shown.add(((Number) t.get("shown")).doubleValue());
              apiEnd.add(((Number) t.get("apiEnd")).doubleValue());
              apiLongest.add(((Number) t.get("apiLongest")).doubleValue());
              calls = ((Number) t.get("calls")).longValue();
            }
          }
          shown.sort(null);
          System.out.printf(
              Locale.ROOT,
              "%-10s %8.1f %8.1f %8.1f %12.1f %12.1f %8d%n",
              page.name(),
              median(shown),
              shown.get(0),
              shown.get(shown.size() - 1),
              median(apiEnd),
              median(apiLongest),
              calls);
        }
      }
      System.out.printf(Locale.ROOT, "load after %s%n", loadAverage());
    } finally {
      try (var files = Files.walk(dataDir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    return sorted.get(sorted.size() / 2);
  }

  private static String loadAverage() throws java.io.IOException {
    String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
    return fields[0] + " " + fields[1] + " " + fields[2];
  }

  /** Publishes the configs and creates the services over HTTP, {@value #WRITERS} at a time. */
  private static void fill(String base, int configs, int services) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        int first = w;
        done.add(
            writers.submit(
                () -> {
                  for (int i = first; i < configs; i += WRITERS) {
                    post(
                        http,
                        base + "/nacos/v1/cs/configs",
                        "dataId=cfg-"
                            + String.format(Locale.ROOT, "%05d", i)
                            + ".properties&group=LOAD&content="
                            + URLEncoder.encode("k=" + i, StandardCharsets.UTF_8));
                  }
                  for (int i = first; i < services; i += WRITERS) {
                    post(
                        http,
                        base + "/nacos/v1/ns/service",
                        "serviceName=svc-" + String.format(Locale.ROOT, "%05d", i));
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      writers.shutdownNow();
    }
  }

  private static void post(HttpClient http, String url, String form) {
    try {
      HttpResponse<String> reply =
          http.send(
              HttpRequest.newBuilder(URI.create(url))
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .POST(HttpRequest.BodyPublishers.ofString(form))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (reply.statusCode() != 200) {
        throw new IllegalStateException(url + " " + form + " answered " + reply.statusCode());
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
