package io.sluice.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The packaged agent jar keeps its promise to the application: the only classes a class loader can
 * find in it are the launcher and the bootstrap API; the agent proper and its shaded libraries sit
 * under {@code inst/} as {@code .classdata}.
 */
class AgentJarIT {
  private static final Path JAR = Path.of("target/sluice-agent.jar");

  @Test
  void exposesOnlyTheLauncherAndTheBootstrapApiAsClasses() throws Exception {
    List<String> visibleClasses = new ArrayList<>();
    List<String> hidden = new ArrayList<>();
    try (JarFile jar = new JarFile(JAR.toFile())) {
      for (JarEntry entry : Collections.list(jar.entries())) {
        String name = entry.getName();
        if (name.endsWith(".class")) {
          visibleClasses.add(name);
        } else if (name.endsWith(".classdata")) {
          hidden.add(name);
        }
      }
    }
    assertThat(visibleClasses)
        .allMatch(
            name ->
                name.startsWith("io/sluice/agent/bootstrap/")
                    || name.matches("io/sluice/agent/[A-Za-z]+\\.class"),
            "launcher or bootstrap API");
    assertThat(visibleClasses).contains("io/sluice/agent/SluiceAgent.class");
    assertThat(hidden)
        .allMatch(name -> name.startsWith("inst/"))
        .contains(
            "inst/io/sluice/agent/internal/AgentInstaller.classdata",
            "inst/io/sluice/agent/shaded/net/bytebuddy/ByteBuddy.classdata",
            "inst/io/sluice/agent/shaded/flow/FlowRegistry.classdata")
        .noneMatch(name -> name.startsWith("inst/net/bytebuddy/"))
        .noneMatch(name -> name.startsWith("inst/io/sluice/flow/"));
  }

  @Test
  void declaresPremainAgentmainAndRetransformation() throws Exception {
    try (JarFile jar = new JarFile(JAR.toFile())) {
      Attributes main = jar.getManifest().getMainAttributes();
      assertThat(main.getValue("Premain-Class")).isEqualTo("io.sluice.agent.SluiceAgent");
      assertThat(main.getValue("Agent-Class")).isEqualTo("io.sluice.agent.SluiceAgent");
      assertThat(main.getValue("Can-Retransform-Classes")).isEqualTo("true");
    }
  }
}
