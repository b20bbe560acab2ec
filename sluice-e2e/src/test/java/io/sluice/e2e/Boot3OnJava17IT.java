package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
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
  void appliesTheCachedRulesAtTheNextStartBeforeTheServerAnswers() throws Exception {
    configCenter.publish(
        appName() + "-flow-rules", "[{\"resource\":\"GET /orders/{id}\",\"count\":5}]");
    await().atMost(RULE_DEADLINE).until(() -> burst("/orders/1", 20).getOrDefault(429, 0) > 0);
    app.close();
    configCenter.stop();

    app = startApp();
    assertThat(burst("/orders/3", 20).getOrDefault(429, 0)).isGreaterThan(0);
    assertThat(app.output()).contains("[sluice-agent]");
  }
}
