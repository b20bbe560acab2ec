package io.sluice.e2e;

import java.nio.file.Path;

/**
 * Spring Boot 3.5 on Undertow 2.3 instead of Tomcat, Java 17: every scenario, so inbound
 * governance, async requests and context propagation are checked on a second servlet container.
 */
class Boot3UndertowOnJava17IT extends GovernedAppScenarios {
  @Override
  Path appJar() {
    return Path.of(System.getProperty("sluice.e2e.boot3UndertowJar"));
  }

  @Override
  Path javaHome() {
    return Path.of(System.getProperty("java.home"));
  }

  @Override
  String appName() {
    return "e2e-boot3-undertow-java17";
  }

  @Override
  int javaFeatureVersion() {
    return Runtime.version().feature();
  }
}
