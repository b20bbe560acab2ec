package io.sluice.server.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.function.Function;
import java.util.stream.Stream;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's Chromium, headless, driven through Debian's chromedriver with Selenium, for the
 * console's browser tests. Nothing is downloaded: both binaries come from the machine ({@code
 * apt-get install chromium chromium-driver}; {@code .ci/run} installs them), at {@code /usr/bin}
 * unless the properties {@code sluice.chromium} and {@code sluice.chromedriver} say otherwise.
 * Screenshots go to {@code target/console-screenshots/}, as test artefacts.
 */
public final class HeadlessChromium implements AutoCloseable {
  public static final Path CHROMIUM =
      Path.of(System.getProperty("sluice.chromium", "/usr/bin/chromium"));
  public static final Path CHROMEDRIVER =
      Path.of(System.getProperty("sluice.chromedriver", "/usr/bin/chromedriver"));
  public static final Path SCREENSHOTS = Path.of("target", "console-screenshots");
  private static final Duration WAIT = Duration.ofSeconds(20);

  private final ChromeDriverService service;
  private final ChromeDriver driver;
  private final Path profile;

  private HeadlessChromium(ChromeDriverService service, ChromeDriver driver, Path profile) {
    this.service = service;
    this.driver = driver;
    this.profile = profile;
  }

  public static HeadlessChromium start() {
    if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
      throw new IllegalStateException(
          "browser tests need Debian's Chromium and chromedriver at "
              + CHROMIUM
              + " and "
              + CHROMEDRIVER
              + ": apt-get install chromium chromium-driver (.ci/run does)");
    }
    try {
      Path profile = Files.createTempDirectory("sluice-chromium-");
      ChromeOptions options = new ChromeOptions();
      options.setBinary(CHROMIUM.toFile());
      // The flags keep Chromium off the network (this machine has none beyond loopback).
      options.addArguments(
          "--headless=new",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-dev-shm-usage",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--disable-default-apps",
          "--window-size=1400,1000",
          "--user-data-dir=" + profile);
      // chromedriver must be told its port (Selenium connects to it there): a free one, tried
      // again on another if it was taken meanwhile. Chromium's own debugging port is its choice
      // (chromedriver starts it with --remote-debugging-port=0 and reads DevToolsActivePort).
      return FreePorts.onPort(port -> start(port, options, profile));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static HeadlessChromium start(int port, ChromeOptions options, Path profile) {
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(CHROMEDRIVER.toFile())
            .usingPort(port)
            .build();
    try {
      return new HeadlessChromium(service, new ChromeDriver(service, options), profile);
    } catch (RuntimeException e) {
      service.stop();
      // chromedriver exits when it cannot bind its port ("died prematurely", to Selenium): if
      // something else holds the port now, that was why.
      if (!FreePorts.isFree(port)) {
        throw new FreePorts.PortTakenException("chromedriver's port " + port + " is taken", e);
      }
      throw e;
    }
  }

  public WebDriver driver() {
    return driver;
  }

  public void open(String url) {
    driver.get(url);
  }

  /**
   * Waits until {@code condition} is neither null nor false, up to 20 s. An element the page
   * re-rendered between finding and reading it (stale) is looked for again, not a failure.
   */
  public <T> T until(Function<WebDriver, T> condition) {
    return new WebDriverWait(driver, WAIT)
        .ignoring(StaleElementReferenceException.class)
        .until(condition);
  }

  /** The first displayed element matching {@code by}, once there is one. */
  public WebElement element(By by) {
    return until(
        d -> d.findElements(by).stream().filter(WebElement::isDisplayed).findFirst().orElse(null));
  }

  /** Waits until an element matching {@code by} shows {@code text}; returns the element. */
  public WebElement elementWithText(By by, String text) {
    return until(
        d ->
            d.findElements(by).stream()
                .filter(e -> e.getText().contains(text))
                .findFirst()
                .orElse(null));
  }

  public void screenshot(String name) {
    try {
      Files.createDirectories(SCREENSHOTS);
      byte[] png = ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES);
      Files.write(SCREENSHOTS.resolve(name + ".png"), png);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    try {
      driver.quit();
    } finally {
      service.stop();
      try (Stream<Path> files = Files.walk(profile)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException ignored) {
        // A temporary profile left behind is harmless.
      }
    }
  }
}
