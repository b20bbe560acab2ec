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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;

/**
 * How long the console's pages take to show their data in headless Chromium (Debian's, as the
 * browser tests use) when the server holds {@code configs} configs and {@code services} services:
 * from the navigation until the page's table is filled, measured in this process around Selenium's
 * calls (so a few milliseconds of WebDriver overhead are included). Each page is loaded fresh
 * (through {@code about:blank}) {@code rounds} times after two warm-up loads; prints the median,
 * minimum and maximum per page. The server runs in this JVM, started on a free port over a
 * temporary data directory.
 *
 * <pre>
 * java -cp sluice-bench/target/benchmarks.jar io.sluice.bench.console.ConsolePageLoad 10000 10000 15
 * </pre>
 */
public final class ConsolePageLoad {
  private static final int WRITERS = 4;

  private ConsolePageLoad() {}

  /** One page: where it is and what shows that its data arrived. */
  private record Page(String name, String hash, Function<WebDriver, Boolean> loaded) {}

  public static void main(String[] args) throws Exception {
    int configs = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int services = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 15;
    Path dataDir = Files.createTempDirectory("sluice-console-load-");
    try (SluiceServer server =
        SluiceServer.start(
            ServerOptions.builder()
                .httpPort(FreePorts.httpPortWithFreeGrpcPort())
                .dataDir(dataDir)
                .build())) {
      if (!server.awaitReady(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the server did not start");
      }
      String base = server.httpAddress();
      long filling = System.nanoTime();
      fill(base, configs, services);
      System.out.printf(
          Locale.ROOT,
          "filled %d configs and %d services in %.1f s%n",
          configs,
          services,
          (System.nanoTime() - filling) / 1e9);

      List<Page> pages =
          List.of(
              new Page("configs", "#/configs", rows("config-row", 20)),
              new Page("services", "#/services", rows("service-row", 20)),
              new Page(
                  "service",
                  "#/service?name=svc-00000",
                  d -> !d.findElements(By.cssSelector("[data-test='subscriber-count']")).isEmpty()),
              new Page("cluster", "#/cluster", rows("node-row", 1)),
              new Page(
                  "lanes",
                  "#/lanes",
                  d ->
                      d.findElements(By.cssSelector("[data-test='rules-status']")).stream()
                          .anyMatch(e -> e.getText().contains("Stored as"))));
      try (HeadlessChromium browser = HeadlessChromium.start()) {
        System.out.printf(
            Locale.ROOT,
            "%-10s %10s %10s %10s  (ms, %d loads)%n",
            "page",
            "median",
            "min",
            "max",
            rounds);
        for (Page page : pages) {
          List<Double> millis = new ArrayList<>();
          for (int i = 0; i < rounds + 2; i++) {
            browser.open("about:blank");
            long start = System.nanoTime();
            browser.open(base + "/nacos/" + page.hash());
            browser.until(page.loaded());
            if (i >= 2) {
              millis.add((System.nanoTime() - start) / 1e6);
            }
          }
          millis.sort(null);
          System.out.printf(
              Locale.ROOT,
              "%-10s %10.1f %10.1f %10.1f%n",
              page.name(),
              millis.get(millis.size() / 2),
              millis.get(0),
              millis.get(millis.size() - 1));
        }
      }
    } finally {
      try (var files = Files.walk(dataDir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static Function<WebDriver, Boolean> rows(String test, int atLeast) {
    return d -> d.findElements(By.cssSelector("[data-test='" + test + "']")).size() >= atLeast;
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
