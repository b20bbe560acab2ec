package io.sluice.bench.competitors;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Sluice as users start it: {@code bin/sluice server} with the launcher's defaults (serial GC,
 * small shrinking heap, class-data archive), a fresh data directory per start and the harness's
 * port (as a node of a cluster, {@code --peers} naming every node on 127.0.0.1), plus any extra
 * arguments the run names (recorded with its results). The launcher execs the JVM, so the started
 * process is the server.
 */
record SluiceUnderTest(Path launcher, boolean skipBuild, List<String> extraArgs)
    implements ServerUnderTest {
  SluiceUnderTest {
    if (!Files.isExecutable(launcher)) {
      throw new IllegalArgumentException(launcher + " is not an executable bin/sluice");
    }
  }

  @Override
  public String name() {
    return "sluice";
  }

  /** {@code SLUICE_SKIP_BUILD=1} when the caller has just built the server (tests). */
  @Override
  public java.util.Map<String, String> environment() {
    return skipBuild ? java.util.Map.of("SLUICE_SKIP_BUILD", "1") : java.util.Map.of();
  }

  /** A node's Raft port: {@code bin/sluice}'s default offset below its HTTP port. */
  @Override
  public List<Integer> extraPorts(int httpPort, boolean clustered) {
    return clustered ? List.of(httpPort - 1000) : List.of();
  }

  @Override
  public List<String> command(Path work, int httpPort, List<Integer> cluster) {
    List<String> command = new java.util.ArrayList<>();
    command.addAll(
        List.of(
            launcher.toString(),
            "server",
            "--port",
            Integer.toString(httpPort),
            "--bind",
            "127.0.0.1",
            "--data-dir",
            work.resolve("data").toString()));
    if (!cluster.isEmpty()) {
      command.add("--peers");
      command.add(String.join(",", cluster.stream().map(p -> "127.0.0.1:" + p).toList()));
    }
    command.addAll(extraArgs);
    return command;
  }
}
