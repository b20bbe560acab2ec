package io.sluice.e2e;

import java.nio.file.Path;

/** The lane chain on the newest supported generation: Spring Boot 4.0, Spring Cloud 2025.1. */
class LanesOnSpringCloud2025IT extends LaneChainScenarios {
  @Override
  Path serviceJar() {
    return Path.of(System.getProperty("sluice.e2e.lanesService2025Jar"));
  }

  @Override
  Path gatewayJar() {
    return Path.of(System.getProperty("sluice.e2e.lanesGateway2025Jar"));
  }

  @Override
  String label() {
    return "lanes-sc2025";
  }
}
