package io.sluice.e2e.chain;

/** The chain on the oldest supported generation: Spring Boot 3.2, Spring Cloud 2023.0. */
class Boot32ChainIT extends ChainScenarios {
  @Override
  SpringGeneration generation() {
    return SpringGeneration.SPRING_BOOT_3_2;
  }
}
