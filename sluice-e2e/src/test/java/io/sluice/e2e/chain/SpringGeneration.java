package io.sluice.e2e.chain;

import java.nio.file.Path;

/**
 * A build of the example chain ({@code sluice-examples}): the same sources on the oldest, the
 * reference and the newest Spring generation the agent supports.
 */
public enum SpringGeneration {
  /** Spring Boot 3.2, Spring Cloud 2023.0, Spring Cloud Alibaba 2023.0.3. */
  SPRING_BOOT_3_2("spring-boot-3.2"),
  /** Spring Boot 3.5, Spring Cloud 2025.0, Spring Cloud Alibaba 2025.0: the reference. */
  SPRING_BOOT_3_5(""),
  /** Spring Boot 4.0, Spring Cloud 2025.1, Spring Cloud Alibaba 2025.1. */
  SPRING_BOOT_4_0("spring-boot-4.0");

  private final String buildDir;

  SpringGeneration(String buildDir) {
    this.buildDir = buildDir;
  }

  /** The executable jar of {@code app} (gateway, a, b, c) under the examples directory. */
  public Path jar(Path examplesDir, String app) {
    return examplesDir.resolve(buildDir).resolve(app).resolve("target").resolve(app + ".jar");
  }
}
