package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.testing.HeadlessChromium;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * The governance console end to end: a real Spring Boot application under the built agent reports
 * its traffic to a real sluice-server; a user opens the application in headless Chromium, sees its
 * route with live numbers, adds a QPS limit in the rule editor, and the application enforces it
 * while the blocked calls show on the live chart.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GovernanceConsoleIT {
  private static final String APP = "e2e-console";
  private static final String ROUTE = "GET /orders/{id}";
  private static final Path DIR = GovernedAppScenarios.WORK_DIR.resolve(APP);

  private SluiceServer server;
  private AppProcess app;
  private HeadlessChromium browser;
  private final ScheduledExecutorService load = Executors.newSingleThreadScheduledExecutor();
  private final Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
  private final AtomicLong firstRefusalNanos = new AtomicLong();
  private final AtomicLong lastAnswerNanos = new AtomicLong();

  @BeforeAll
  void start() throws Exception {
    GovernedAppScenarios.deleteRecursively(DIR);
    // Port 0: the agent and the browser speak HTTP only, so no gRPC port needs deriving.
    server =
        SluiceServer.start(
            ServerOptions.builder().httpPort(0).dataDir(DIR.resolve("server-data")).build());
    assertThat(server.awaitReady(30, TimeUnit.SECONDS)).isTrue();
    app =
        AppProcess.start(
            Path.of(System.getProperty("java.home")),
            Path.of(System.getProperty("sluice.e2e.boot3Jar")),
            GovernedAppScenarios.AGENT_JAR,
            "server.addr=127.0.0.1:"
                + server.httpPort()
                + ",log.dir="
                + DIR.toAbsolutePath()
                + ",cache.dir="
                + DIR.resolve("rule-cache").toAbsolutePath()
                + ",traffic.all-resources=true",
            APP,
            DIR);
    browser = HeadlessChromium.start();
    // Steady traffic, 20 calls a second, counted by status. Sent without waiting for the answer,
    // so one slow or lost call cannot pause the traffic the rule is checked against.
    AtomicInteger next = new AtomicInteger();
    load.scheduleAtFixedRate(
        () ->
            app.http
                .sendAsync(
                    HttpRequest.newBuilder(app.uri("/orders/" + next.incrementAndGet()))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                    HttpResponse.BodyHandlers.discarding())
                .whenComplete(
                    (response, failure) -> {
                      int status = response == null ? -1 : response.statusCode();
                      statuses.computeIfAbsent(status, s -> new AtomicInteger()).incrementAndGet();
                      lastAnswerNanos.set(System.nanoTime());
                      if (status == 429) {
                        firstRefusalNanos.compareAndSet(0, System.nanoTime());
                      }
                    }),
        0,
        50,
        TimeUnit.MILLISECONDS);
  }

  @AfterAll
  void stop() throws Exception {
    load.shutdownNow();
    load.awaitTermination(10, TimeUnit.SECONDS);
    if (browser != null) {
      browser.close();
    }
    if (app != null) {
      app.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** Why no call was refused: what the calls answered, and what the agent logged of its rules. */
  private String noRefusal() {
    StringBuilder why =
        new StringBuilder("no call refused within 30 s of Save; answers by status (-1: none) ")
            .append(statuses)
            .append(", the last ")
            .append(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastAnswerNanos.get()))
            .append(" ms ago; the agent's log on rules and its config center:");
    try {
      GovernedAppScenarios.agentLogsIn(DIR)
          .lines()
          .filter(l -> l.contains("rule") || l.contains("config center") || l.contains("WARN"))
          .forEach(line -> why.append('\n').append(line));
    } catch (IOException e) {
      why.append(" (unreadable: ").append(e).append(')');
    }
    return why.toString();
  }

  private static By test(String name) {
    return By.cssSelector("[data-test='" + name + "']");
  }

  @Test
  void aFlowRuleAddedInTheConsoleIsEnforcedAndItsBlocksShowOnTheLiveChart() throws Exception {
    browser.open(server.httpAddress() + "/nacos/#/app?name=" + APP);
    // The agent's reports: the route shows with its calls of the last second.
    String row =
        browser.until(
            d ->
                d.findElements(test("resource-row")).stream()
                    .filter(r -> ROUTE.equals(r.getAttribute("data-resource")))
                    .filter(r -> !r.findElement(test("pass")).getText().isBlank())
                    .filter(r -> Integer.parseInt(r.findElement(test("pass")).getText()) > 0)
                    .map(WebElement::getText)
                    .findFirst()
                    .orElse(null));
    assertThat(row).contains("Spring MVC route");
    // The agent's own calls to the server (its rule watch, these reports) are not the app's.
    List<String> resources =
        browser.until(
            d ->
                d.findElements(test("resource-row")).stream()
                    .map(r -> r.getAttribute("data-resource"))
                    .toList());
    assertThat(resources).contains(ROUTE).noneMatch(name -> name.contains("/nacos/"));
    browser.element(test("qps-chart"));
    browser.screenshot("governance-app");
    assertThat(statuses.getOrDefault(429, new AtomicInteger()).get()).isZero();

    // The rule editor is usable once the stored document has loaded (until then it is read-only).
    browser.elementWithText(test("rules-status"), "Stored as " + APP + "-flow-rules");
    WebElement resource = browser.element(By.name("quick-resource"));
    resource.sendKeys(ROUTE);
    WebElement qps = browser.element(By.name("quick-qps"));
    qps.clear();
    qps.sendKeys("5");
    browser.element(By.xpath("//button[text()='Add to the rules below']")).click();
    browser.element(test("save-rules")).click();
    long savedNanos = System.nanoTime();
    browser.elementWithText(test("rules-status"), "Saved " + APP + "-flow-rules: 1 rule");

    // The application enforces it: 20 calls a second against a limit of 5. Waited for longer than
    // the bound below, so that a miss says what the application and its agent saw.
    long deadline = savedNanos + TimeUnit.SECONDS.toNanos(30);
    while (firstRefusalNanos.get() == 0 && System.nanoTime() - deadline < 0) {
      Thread.sleep(50);
    }
    assertThat(firstRefusalNanos.get()).as(this::noRefusal).isNotZero();
    long appliedMillis = (firstRefusalNanos.get() - savedNanos) / 1_000_000;
    System.err.printf("[e2e] console: flow rule enforced %d ms after Save%n", appliedMillis);
    assertThat(appliedMillis).isLessThan(Duration.ofSeconds(10).toMillis()); // 10x the goal

    // Blocked calls rise on the live chart of the route (chosen by its link, found and clicked
    // inside one wait since the table is drawn again every second), whose newest reported second
    // is named under the charts.
    browser.until(
        d -> {
          d.findElement(By.linkText(ROUTE)).click();
          return Boolean.TRUE;
        });
    String latest =
        browser.until(
            d -> {
              List<WebElement> count = d.findElements(test("latest-block-count"));
              return !count.isEmpty() && Integer.parseInt(count.get(0).getText()) > 0
                  ? d.findElement(test("latest-block")).getText()
                  : null;
            });
    assertThat(latest).startsWith("Blocked in the latest reported second (");
    browser.elementWithText(By.xpath("//h2[starts-with(., 'Live: ')]"), "Live: " + ROUTE);
    // Read inside the wait: the chart re-renders every second, so an element found there may be
    // stale by the time it is read again (the wait looks again when it is).
    Integer blocked =
        browser.until(
            d ->
                d.findElements(test("resource-row")).stream()
                    .filter(r -> ROUTE.equals(r.getAttribute("data-resource")))
                    .map(r -> r.findElement(test("block")).getText())
                    .filter(text -> !text.isBlank() && Integer.parseInt(text) > 0)
                    .map(Integer::parseInt)
                    .findFirst()
                    .orElse(null));
    assertThat(blocked).isBetween(1, 20);
    browser.screenshot("governance-blocking");
  }
}
