package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.tools.attach.VirtualMachine;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Spring Boot 3.5 on Java 17, the reference pairing: every scenario, plus the ones that restart the
 * application (rules cached on disk).
 */
class Boot3OnJava17IT extends GovernedAppScenarios {
  @Override
  Path appJar() {
    return Path.of(System.getProperty("sluice.e2e.boot3Jar"));
  }

  @Override
  Path javaHome() {
    return Path.of(System.getProperty("java.home"));
  }

  @Override
  String appName() {
    return "e2e-boot3-java17";
  }

  @Override
  int javaFeatureVersion() {
    return Runtime.version().feature();
  }

  @Test
  void attachesToARunningApplicationAndGovernsIt() throws Exception {
    String name = appName() + "-attached";
    try (AppProcess plain =
        AppProcess.start(javaHome(), appJar(), AGENT_JAR, null, name, WORK_DIR.resolve(name))) {
      assertThat(plain.get("/ctx/thread-pool", "x-sluice-lane", "blue").body())
          .isEqualTo("no-agent");

      // Spring has long prepared its environment: the name must come with the arguments.
      VirtualMachine vm = VirtualMachine.attach(Long.toString(plain.pid()));
      try {
        vm.loadAgent(
            AGENT_JAR.toString(),
            "server.addr="
                + configCenter.address()
                + ",app.name="
                + name
                + ",log.dir="
                + WORK_DIR.resolve(name).toAbsolutePath()
                + ",cache.dir="
                + WORK_DIR.resolve(name).resolve("rule-cache").toAbsolutePath());
      } finally {
        vm.detach();
      }

      // Classes loaded before the attach were retransformed: executors and Spring MVC.
      assertThat(plain.get("/ctx/thread-pool", "x-sluice-lane", "blue").body()).isEqualTo("blue");
      configCenter.publish(
          name + "-flow-rules", "[{\"resource\":\"GET /orders/{id}\",\"count\":3}]");
      await()
          .atMost(RULE_DEADLINE)
          .until(() -> plain.get("/orders/" + System.nanoTime()).statusCode() == 429);
      assertThat(plain.output()).contains("[sluice-agent] 0.1.0 attached");
    }
  }

  @Test
  void appliesTheCachedRulesAndWovenClassesAtTheNextStartBeforeTheServerAnswers() throws Exception {
    configCenter.publish(
        appName() + "-flow-rules", "[{\"resource\":\"GET /orders/{id}\",\"count\":5}]");
    await().atMost(RULE_DEADLINE).until(() -> burst("/orders/1", 20).getOrDefault(429, 0) > 0);
    app.close();
    configCenter.stop();

    app = startApp();
    assertThat(burst("/orders/3", 20).getOrDefault(429, 0)).isGreaterThan(0);
    assertThat(app.output()).contains("[sluice-agent]");
    // The second start took the classes the first one wove from the cache: no Byte Buddy.
    assertThat(agentLog()).contains("from the cache").contains("Byte Buddy not loaded");
  }

  @Test
  void appliesARulePublishedRightAfterAConfigCenterRestartWithinASecond() throws Exception {
    // Earlier tests' rules are gone (the application may still be catching up on their removal).
    await()
        .atMost(RULE_DEADLINE)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> app.get("/orders/5").statusCode() == 200);
    configCenter.stop();
    // Long enough for the watcher's backoff to grow (0.5, 1, 2, 4, 8 s): without noticing the
    // server's return it would wait up to 8 s more.
    Thread.sleep(12_000);
    configCenter.restart();
    configCenter.publish(
        appName() + "-flow-rules", "[{\"resource\":\"GET /orders/{id}\",\"count\":0}]");
    long acknowledged = System.nanoTime();
    await()
        .atMost(RULE_DEADLINE)
        .pollInterval(Duration.ZERO)
        .until(() -> app.get("/orders/5").statusCode() == 429);
    long millis = (System.nanoTime() - acknowledged) / 1_000_000;
    System.err.printf(
        "[e2e] %s: rule published after a config center restart enforced %d ms after the publish%n",
        appName(), millis);
    assertThat(millis).as("ms from the publish to enforcement").isLessThanOrEqualTo(1000);
  }
}
