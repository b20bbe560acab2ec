package io.sluice.e2e.chain;

import java.nio.file.Path;

/**
 * A build of the example chain ({@code sluice-examples}): the same sources on the oldest, the
 * reference and the newest Spring generation the agent supports.
 */
public enum SpringGeneration {
  /** Spring Boot 3.2, Spring Cloud 2023.0, Spring Cloud Alibaba 2023.0.3. */
  SPRING_BOOT_3_2("spring-boot-3.2", false),
  /**
   * Spring Boot 3.5, Spring Cloud 2025.0, Spring Cloud Alibaba 2025.0: the reference, with the
   * Dubbo paths (Dubbo 3.3).
   */
  SPRING_BOOT_3_5("", true),
  /** Spring Boot 4.0, Spring Cloud 2025.1, Spring Cloud Alibaba 2025.1. */
  SPRING_BOOT_4_0("spring-boot-4.0", false);

  private final String buildDir;
  private final boolean dubbo;

  SpringGeneration(String buildDir, boolean dubbo) {
    this.buildDir = buildDir;
    this.dubbo = dubbo;
  }

  /**
   * Whether this build has the Dubbo paths ({@code /a/dubboTest}, {@code /a/mixedTest}: b and c
   * export Dubbo services).
   */
  public boolean hasDubbo() {
    return dubbo;
  }

  /** The executable jar of {@code app} (gateway, a, b, c) under the examples directory. */
  public Path jar(Path examplesDir, String app) {
    return examplesDir.resolve(buildDir).resolve(app).resolve("target").resolve(app + ".jar");
  }
}
