package io.sluice.bench.competitors;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Sluice as users start it: {@code bin/sluice server} with the launcher's defaults (serial GC,
 * small shrinking heap, class-data archive), a fresh data directory per start and the harness's
 * port. The launcher execs the JVM, so the started process is the server.
 */
record SluiceUnderTest(Path launcher) implements ServerUnderTest {
  SluiceUnderTest {
    if (!Files.isExecutable(launcher)) {
      throw new IllegalArgumentException(launcher + " is not an executable bin/sluice");
    }
  }

  @Override
  public String name() {
    return "sluice";
  }

  @Override
  public List<String> command(Path work, int httpPort) {
    return List.of(
        launcher.toString(),
        "server",
        "--port",
        Integer.toString(httpPort),
        "--bind",
        "127.0.0.1",
        "--data-dir",
        work.resolve("data").toString());
  }
}
