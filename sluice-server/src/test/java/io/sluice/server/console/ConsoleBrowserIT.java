package io.sluice.server.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.alibaba.nacos.api.config.ConfigService;
import com.alibaba.nacos.api.config.listener.AbstractListener;
import com.alibaba.nacos.api.naming.NamingService;
import com.alibaba.nacos.api.naming.pojo.Instance;
import io.sluice.flow.InvalidRuleDocumentException;
import io.sluice.flow.RuleDocument;
import io.sluice.flow.RuleKind;
import io.sluice.flow.lane.InvalidLanesException;
import io.sluice.flow.lane.LaneDocument;
import io.sluice.server.ServerOptions;
import io.sluice.server.testing.HeadlessChromium;
import io.sluice.server.testing.OfficialClients;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
  void createsEditsAndRefusesTheLaneDocumentWithTheAgentsParser() throws Exception {
    String bad = "{\"lanes\":[{\"name\":\"gray-half\",\"tag\":\"gray\",\"precentage\":50}]}";
    String parserSays;
    try {
      LaneDocument.parse(bad);
      throw new AssertionError("the lane parser accepted " + bad);
    } catch (InvalidLanesException e) {
      parserSays = e.getMessage();
    }
    ConfigService client = clients.configService((String) null);

    // Create, from the governance page's link.
    browser.open(base + "/nacos/#/governance");
    browser.element(test("edit-lanes")).click();
    WebElement editor = browser.element(test("rules-editor"));
    browser.elementWithText(test("rules-status"), "Stored as lanes in group SLUICE (not yet)");
    editor.sendKeys(
        "{\"lanes\":[{\"name\":\"beta\",\"tag\":\"gray\","
            + "\"conditions\":[{\"header\":\"X-User-Id\",\"equals\":\"42\"}]}]}");
    browser.element(test("save-rules")).click();
    browser.elementWithText(test("rules-status"), "Saved lanes: 1 lane;");
    assertThat(browser.element(test("rules-in-force")).getText())
        .contains("beta -> gray: requests that match [header x-user-id EQUALS 42]");
    browser.screenshot("lanes-saved");
    assertThat(client.getConfig("lanes", "SLUICE", 5_000)).contains("\"beta\"");

    // Add a lane with the form: it writes the JSON, and saving checks it with the same parser.
    WebElement form = browser.element(test("lane-form"));
    form.findElement(By.name("lane-name")).sendKeys("mobile");
    form.findElement(By.name("lane-tag")).sendKeys("blue");
    form.findElement(test("lane-add-condition")).click();
    WebElement condition = browser.element(test("lane-condition"));
    condition.findElement(By.name("condition-name")).sendKeys("user-agent");
    new Select(condition.findElement(By.name("condition-operator"))).selectByValue("regex");
    condition.findElement(By.name("condition-value")).sendKeys(".*Android.*");
    form.findElement(By.name("lane-percentage")).sendKeys("20");
    new Select(form.findElement(By.name("lane-sticky-source"))).selectByValue("cookie");
    form.findElement(By.name("lane-sticky-name")).sendKeys("uid");
    form.findElement(test("lane-put")).click();
    browser.until(d -> editor.getAttribute("value").contains("\"mobile\""));
    browser.element(test("save-rules")).click();
    browser.elementWithText(test("rules-status"), "Saved lanes: 2 lanes;");
    assertThat(browser.element(test("rules-in-force")).getText())
        .contains("mobile -> blue", "header user-agent REGEX .*Android.*", "sticky on cookie uid");
    browser.screenshot("lanes-form");
    // Picked again from the menu, the form shows the stored lane; a tag the parser refuses is
    // refused with its message and nothing is stored.
    new Select(form.findElement(test("lane-pick"))).selectByValue("mobile");
    browser.until(d -> "blue".equals(form.findElement(By.name("lane-tag")).getAttribute("value")));
    form.findElement(By.name("lane-tag")).clear();
    form.findElement(By.name("lane-tag")).sendKeys("base");
    form.findElement(test("lane-put")).click();
    browser.element(test("save-rules")).click();
    browser.elementWithText(test("rules-status"), "Refused, nothing saved");
    assertThat(client.getConfig("lanes", "SLUICE", 5_000)).contains("\"blue\"");

    // Edit, from an application's rule editor, where the lanes are one tab.
    browser.open(base + "/nacos/#/app?name=shop&kind=lanes");
    WebElement appEditor = browser.element(test("rules-editor"));
    browser.until(d -> appEditor.getAttribute("value").contains("beta"));
    String edited =
        "{\"lanes\":[{\"name\":\"beta\",\"tag\":\"gray\","
            + "\"conditions\":[{\"header\":\"X-User-Id\",\"equals\":\"42\"}]},"
            + "{\"name\":\"gray-half\",\"tag\":\"gray\",\"percentage\":50,"
            + "\"stickyOn\":{\"header\":\"x-user-id\"}}]}";
    appEditor.clear();
    appEditor.sendKeys(edited);
    browser.element(test("save-rules")).click();
    browser.elementWithText(test("rules-status"), "Saved lanes: 2 lanes;");
    assertThat(browser.element(test("rules-in-force")).getText())
        .contains("gray-half -> gray: 50 % of requests, sticky on header x-user-id");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> edited.equals(client.getConfig("lanes", "SLUICE", 5_000)));

    // Refuse what the agents would refuse, with their parser's message, storing nothing.
    appEditor.clear();
    appEditor.sendKeys(bad);
    browser.element(test("save-rules")).click();
    WebElement status = browser.elementWithText(test("rules-status"), "Refused, nothing saved");
    assertThat(status.getText()).contains(parserSays);
    browser.screenshot("lanes-refused");
    assertThat(client.getConfig("lanes", "SLUICE", 5_000)).isEqualTo(edited);
  }

  @Test
  void listsServicesAndChangesAnInstancesWeightAndEnabledForEveryClient() throws Exception {
    NamingService provider = clients.namingService((String) null);
    Instance registered = new Instance();
    registered.setIp("127.0.0.5");
    registered.setPort(8080);
    registered.setWeight(1);
    registered.setMetadata(Map.of("sluice.lane", "gray"));
    provider.registerInstance("browser-orders", "CONSOLE", registered);
    NamingService consumer = clients.namingService((String) null);
    consumer.subscribe("browser-orders", "CONSOLE", event -> {});

    browser.open(base + "/nacos/#/services?group=CONSOLE");
    WebElement row = browser.elementWithText(test("service-row"), "browser-orders");
    assertThat(row.getText()).contains("CONSOLE", "gray");
    assertThat(row.findElements(By.cssSelector("td.num")).get(0).getText()).isEqualTo("1");
    assertThat(row.findElements(By.cssSelector("td.num")).get(1).getText()).isEqualTo("1");
    browser.screenshot("services-list");
    row.findElement(By.tagName("a")).click();

    WebElement instance = browser.elementWithText(test("instance-row"), "127.0.0.5:8080");
    assertThat(instance.getText()).contains("healthy", "ephemeral", "gray");
    browser.elementWithText(test("subscriber-count"), "1 client subscribed");
    assertThat(browser.element(test("subscriber-row")).getText()).contains("Nacos-Java-Client");
    browser.screenshot("service-detail");

    WebElement weight = instance.findElement(By.name("weight"));
    weight.clear();
    weight.sendKeys("3");
    instance.findElement(test("save-instance")).click();
    browser.elementWithText(test("status"), "Saved 127.0.0.5:8080: weight 3, enabled");
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(consumer.getAllInstances("browser-orders", "CONSOLE", false))
                    .singleElement()
                    .satisfies(i -> assertThat(i.getWeight()).isEqualTo(3.0)));

    // Disabled, it leaves what clients get, and stays in the console to be enabled again.
    instance.findElement(By.name("enabled")).click();
    instance.findElement(test("save-instance")).click();
    browser.elementWithText(test("status"), "Saved 127.0.0.5:8080: weight 3, disabled");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> consumer.getAllInstances("browser-orders", "CONSOLE", false).isEmpty());
    browser.driver().navigate().refresh();
    WebElement again = browser.elementWithText(test("instance-row"), "127.0.0.5:8080");
    WebElement enabled = again.findElement(By.name("enabled"));
    assertThat(enabled.isSelected()).isFalse();
    enabled.click();
    again.findElement(test("save-instance")).click();
    browser.elementWithText(test("status"), "Saved 127.0.0.5:8080: weight 3, enabled");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> consumer.getAllInstances("browser-orders", "CONSOLE", false).size() == 1);
  }

  @Test
  void pagesThroughServicesOnTheServer() throws Exception {
    NamingService provider = clients.namingService((String) null);
    for (int i = 0; i < 25; i++) {
      Instance instance = new Instance();
      instance.setIp("127.0.0.6");
      instance.setPort(9000 + i);
      provider.registerInstance(String.format("paged-%02d", i), "PAGED", instance);
    }
    browser.open(base + "/nacos/#/services?group=PAGED");
    browser.elementWithText(test("service-pages"), "25 services, page 1 of 2");
    assertThat(browser.driver().findElements(test("service-row"))).hasSize(20);
    browser.element(test("next-page")).click();
    browser.elementWithText(test("service-pages"), "page 2 of 2");
    browser.until(d -> d.findElements(test("service-row")).size() == 5);
    assertThat(browser.driver().findElements(test("service-row")).get(0).getText())
        .contains("paged-20");

    // A service's instances and subscribers are paged on the server too (here 2 a page).
    List<Instance> many = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      Instance instance = new Instance();
      instance.setIp("127.0.0.7");
      instance.setPort(7000 + i);
      many.add(instance);
    }
    clients.namingService((String) null).batchRegisterInstance("paged-00", "PAGED", many);
    for (int i = 0; i < 3; i++) {
      clients.namingService((String) null).subscribe("paged-00", "PAGED", event -> {});
    }
    browser.open(base + "/nacos/#/service?name=paged-00&group=PAGED&size=2");
    browser.elementWithText(test("instance-pages"), "6 instances, page 1 of 3");
    browser.elementWithText(test("subscriber-pages"), "3 subscribers, page 1 of 2");
    assertThat(browser.driver().findElements(test("instance-row"))).hasSize(2);
    assertThat(browser.driver().findElements(test("subscriber-row"))).hasSize(2);
    browser.element(test("instance-pages-next")).click();
    browser.elementWithText(test("instance-pages"), "page 2 of 3");
    browser.element(test("instance-pages-next")).click();
    browser.elementWithText(test("instance-pages"), "page 3 of 3");
    // Sorted by address: the last page holds the last two of 127.0.0.7's ports.
    browser.until(
        d ->
            d.findElements(test("instance-row")).stream()
                .map(WebElement::getText)
                .toList()
                .toString()
                .matches(".*127\\.0\\.0\\.7:7003.*127\\.0\\.0\\.7:7004.*"));
    browser.element(test("subscriber-pages-next")).click();
    browser.elementWithText(test("subscriber-pages"), "page 2 of 2");
    browser.until(d -> d.findElements(test("subscriber-row")).size() == 1);
    browser.elementWithText(test("instance-pages"), "page 3 of 3"); // the other table kept its page
    browser.screenshot("service-detail-paged");
  }

  @Test
  void showsTheSingleNodeOfAStandaloneServerAsItsLeader() {
    browser.open(base + "/nacos/#/cluster");
    browser.elementWithText(test("cluster-summary"), "Standalone: one node");
    WebElement node = browser.element(test("node-row"));
    assertThat(node.getText()).contains("127.0.0.1:" + clients.server().httpPort(), "this node");
    assertThat(node.findElement(test("role")).getText()).isEqualTo("leader");
    assertThat(node.findElement(test("state")).getText()).isEqualTo("UP");
    browser.screenshot("cluster");
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
