package io.sluice.e2e;

import java.nio.file.Path;

/** The lane chain on the oldest supported generation: Spring Boot 3.2, Spring Cloud 2023.0. */
class LanesOnSpringCloud2023IT extends LaneChainScenarios {
  @Override
  Path serviceJar() {
    return Path.of(System.getProperty("sluice.e2e.lanesService2023Jar"));
  }

  @Override
  Path gatewayJar() {
    return Path.of(System.getProperty("sluice.e2e.lanesGateway2023Jar"));
  }

  @Override
  String label() {
    return "lanes-sc2023";
  }
}
