package io.sluice.agent.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.agent.ClassFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The bootstrap API is defined in the bootstrap class loader, which sees only the modules it
 * defines ({@code java.base} and a few others, not {@code java.net.http}): a class here that names
 * anything else fails to define, and the agent falls back to appending its jar to the boot class
 * path (with the JVM's class-data-sharing warning in the application's output).
 */
class BootstrapClassesTest {
  @Test
  void everyBootstrapClassNamesOnlyClassesTheBootLoaderSees() throws Exception {
    Path dir =
        Path.of(SluiceHooks.class.getProtectionDomain().getCodeSource().getLocation().toURI())
            .resolve("io/sluice/agent/bootstrap");
    List<Path> classes;
    try (var files = Files.list(dir)) {
      classes = files.filter(p -> p.toString().endsWith(".class")).toList();
    }
    assertThat(classes).hasSizeGreaterThan(10);
    for (Path file : classes) {
      for (String name : ClassFiles.referencedClasses(Files.readAllBytes(file))) {
        if (name.startsWith("io/sluice/agent/bootstrap/")) {
          continue;
        }
        assertThat(bootLoaderSees(name.replace('/', '.')))
            .as(file.getFileName() + " names " + name)
            .isTrue();
      }
    }
  }

  private static boolean bootLoaderSees(String name) {
    try {
      Class.forName(name, false, null);
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
