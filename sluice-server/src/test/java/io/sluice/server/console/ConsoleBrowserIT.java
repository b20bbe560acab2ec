package io.sluice.server.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.alibaba.nacos.api.config.ConfigService;
import com.alibaba.nacos.api.config.listener.AbstractListener;
import io.sluice.flow.InvalidRuleDocumentException;
import io.sluice.flow.RuleDocument;
import io.sluice.flow.RuleKind;
import io.sluice.server.ServerOptions;
import io.sluice.server.testing.HeadlessChromium;
import io.sluice.server.testing.OfficialClients;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

/**
 * The console in a real headless Chromium against a real server, checked with the official
 * nacos-client: what a user does in the page must be what every client sees. Screenshots of each
 * page land in target/console-screenshots.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleBrowserIT {
  @TempDir static Path dataDir;
  @TempDir static Path authDataDir;

  private OfficialClients clients;
  private HeadlessChromium browser;
  private String base;

  @BeforeAll
  void start() {
    clients = OfficialClients.start(dataDir);
    base = clients.server().httpAddress();
    browser = HeadlessChromium.start();
  }

  @AfterAll
  void stop() throws Exception {
    if (browser != null) {
      browser.close();
    }
    clients.close();
  }

  private static By test(String name) {
    return By.cssSelector("[data-test='" + name + "']");
  }

  @Test
  void createsAndEditsAConfigThatTheOfficialClientReadsAndHears() throws Exception {
    browser.open(base + "/");
    browser.element(test("config-search"));
    assertThat(browser.driver().getCurrentUrl()).startsWith(base + "/nacos/");
    browser.screenshot("configs-list");

    browser.element(test("new-config")).click();
    browser.element(By.name("dataId")).sendKeys("browser.json");
    WebElement group = browser.element(By.name("group"));
    group.clear();
    group.sendKeys("CONSOLE");
    new Select(browser.element(By.name("type"))).selectByValue("json");
    WebElement content = browser.element(By.name("content"));
    content.sendKeys("{\"greeting\": ");
    browser.elementWithText(test("syntax"), "Not valid JSON");
    content.sendKeys("\"hello\"}");
    browser.until(d -> d.findElement(By.cssSelector("[data-test='syntax']")).getText().isEmpty());
    browser.screenshot("config-new");
    browser.element(test("publish")).click();
    browser.elementWithText(test("status"), "Published");

    ConfigService client = clients.configService((String) null);
    assertThat(client.getConfig("browser.json", "CONSOLE", 5_000))
        .isEqualTo("{\"greeting\": \"hello\"}");
    CountDownLatch heard = new CountDownLatch(1);
    client.addListener(
        "browser.json",
        "CONSOLE",
        new AbstractListener() {
          @Override
          public void receiveConfigInfo(String config) {
            if (config.contains("bonjour")) {
              heard.countDown();
            }
          }
        });

    browser.open(base + "/nacos/#/configs?dataId=browser.json&group=CONSOLE");
    browser
        .elementWithText(test("config-row"), "browser.json")
        .findElement(By.tagName("a"))
        .click();
    WebElement editor = browser.element(By.name("content"));
    browser.until(d -> editor.getAttribute("value").contains("hello"));
    editor.clear();
    editor.sendKeys("{\"greeting\": \"bonjour\"}");
    browser.element(test("publish")).click();
    browser.elementWithText(test("status"), "Published");
    browser.screenshot("config-edit");

    assertThat(heard.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(client.getConfig("browser.json", "CONSOLE", 5_000))
        .isEqualTo("{\"greeting\": \"bonjour\"}");

    browser.element(test("delete")).click();
    browser.until(d -> d.switchTo().alert()).accept();
    browser.element(test("config-search"));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> client.getConfig("browser.json", "CONSOLE", 5_000) == null);
  }

  @Test
  void rollsAConfigBackFromItsHistoryAfterShowingTheDifference() throws Exception {
    ConfigService client = clients.configService((String) null);
    assertThat(client.publishConfig("rollback.properties", "DEFAULT_GROUP", "size=1\ncolor=red"))
        .isTrue();
    assertThat(client.publishConfig("rollback.properties", "DEFAULT_GROUP", "size=2\ncolor=red"))
        .isTrue();

    browser.open(base + "/nacos/#/history?dataId=rollback.properties&group=DEFAULT_GROUP");
    WebElement diff = browser.elementWithText(test("diff"), "size=2");
    assertThat(diff.getText()).contains("- size=1", "+ size=2", "  color=red");
    browser.screenshot("config-history");

    // The older of the two versions is the second row (newest first).
    browser.until(d -> d.findElements(test("history-row")).size() >= 2);
    browser.driver().findElements(test("history-row")).get(1).findElement(test("rollback")).click();
    browser.until(d -> d.switchTo().alert()).accept();
    browser.elementWithText(test("status"), "Rolled back");

    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                "size=1\ncolor=red"
                    .equals(client.getConfig("rollback.properties", "DEFAULT_GROUP", 5_000)));
  }

  @Test
  void refusesABadRuleWithTheFlowParsersMessageAndSavesNothing() throws Exception {
    String bad = "[{\"resource\":\"GET /orders/{id}\",\"grade\":1,\"count\":-5}]";
    String parserSays;
    try {
      RuleDocument.parse(RuleKind.FLOW, bad);
      throw new AssertionError("the flow parser accepted " + bad);
    } catch (InvalidRuleDocumentException e) {
      parserSays = e.getMessage();
    }

    browser.open(base + "/nacos/#/app?name=shop");
    WebElement editor = browser.element(test("rules-editor"));
    browser.elementWithText(test("rules-status"), "shop-flow-rules");
    editor.sendKeys(bad);
    browser.element(test("save-rules")).click();
    WebElement status = browser.elementWithText(test("rules-status"), "Refused, nothing saved");
    assertThat(status.getText()).contains(parserSays);
    browser.screenshot("rules-refused");

    ConfigService client = clients.configService((String) null);
    assertThat(client.getConfig("shop-flow-rules", "SENTINEL_GROUP", 5_000)).isNull();

    editor.clear();
    editor.sendKeys("[{\"resource\":\"GET /orders/{id}\",\"grade\":1,\"count\":5}]");
    browser.element(test("save-rules")).click();
    browser.elementWithText(test("rules-status"), "Saved shop-flow-rules: 1 rule");
    assertThat(browser.element(test("rules-in-force")).getText()).contains("GET /orders/{id}");
    assertThat(client.getConfig("shop-flow-rules", "SENTINEL_GROUP", 5_000))
        .contains("\"count\":5");
  }

  @Test
  void asksForALoginWhenAuthIsOnAndWorksAfterIt() throws Exception {
    try (OfficialClients secured =
        OfficialClients.start(
            authDataDir,
            options ->
                options
                    .authMode(ServerOptions.AuthMode.ON)
                    .initialAdminPassword("console-test-password"))) {
      String securedBase = secured.server().httpAddress();
      browser.open(securedBase + "/nacos/");
      browser.element(test("login"));
      browser.screenshot("login");
      browser.element(By.name("password")).sendKeys("wrong");
      browser.element(By.cssSelector("[data-test='login'] button")).click();
      browser.elementWithText(
          By.cssSelector("[data-test='login'] .error"), "Wrong user or password");

      WebElement password = browser.element(By.name("password"));
      password.clear();
      password.sendKeys("console-test-password");
      browser.element(By.cssSelector("[data-test='login'] button")).click();
      browser.element(test("config-search"));
      assertThat(browser.element(By.id("user")).getText()).contains("nacos");
    }
  }
}
