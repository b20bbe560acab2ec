package io.sluice.e2e.chain;

/** The chain on the newest supported generation: Spring Boot 4.0, Spring Cloud 2025.1. */
class Boot40ChainIT extends ChainScenarios {
  @Override
  SpringGeneration generation() {
    return SpringGeneration.SPRING_BOOT_4_0;
  }
}
