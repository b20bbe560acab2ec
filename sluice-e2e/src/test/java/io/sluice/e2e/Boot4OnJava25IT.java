package io.sluice.e2e;

import java.nio.file.Path;

/** The scenarios with the e2e-boot4-java25 pairing. */
class Boot4OnJava25IT extends GovernedAppScenarios {

  @Override
  Path appJar() {
    return Path.of(System.getProperty("sluice.e2e.boot4Jar"));
  }

  @Override
  Path javaHome() {
    return Path.of(System.getProperty("sluice.e2e.java25Home"));
  }

  @Override
  String appName() {
    return "e2e-boot4-java25";
  }

  @Override
  int javaFeatureVersion() {
    return 25;
  }
}
