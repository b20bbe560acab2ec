package io.sluice.e2e;

import java.nio.file.Path;

/**
 * Spring Boot 3.5 on Jetty 12 instead of Tomcat, Java 17: every scenario, so inbound governance,
 * async requests and context propagation are checked on a second servlet container.
 */
class Boot3JettyOnJava17IT extends GovernedAppScenarios {
  @Override
  Path appJar() {
    return Path.of(System.getProperty("sluice.e2e.boot3JettyJar"));
  }

  @Override
  Path javaHome() {
    return Path.of(System.getProperty("java.home"));
  }

  @Override
  String appName() {
    return "e2e-boot3-jetty-java17";
  }

  @Override
  int javaFeatureVersion() {
    return Runtime.version().feature();
  }
}
