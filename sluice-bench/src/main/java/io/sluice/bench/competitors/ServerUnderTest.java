package io.sluice.bench.competitors;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A Nacos-compatible server the side-by-side harness starts, measures and stops: open-source Nacos
 * from a distribution directory, or Sluice through {@code bin/sluice}. Each start gets a fresh
 * working directory (data, logs) and the ports the harness chose; the process is pinned with {@code
 * taskset} so that both servers run on the same core.
 */
interface ServerUnderTest {
  /** {@code nacos} or {@code sluice}: how results name this server. */
  String name();

  /**
   * The command that starts the server (or one node of a cluster) in the foreground, so that the
   * started process (after {@code taskset} and the launcher exec) is the server's JVM.
   *
   * @param work a fresh directory for this start's data and logs
   * @param httpPort the HTTP port; gRPC listens on {@code httpPort + 1000}
   * @param cluster the HTTP ports of every node of the cluster on 127.0.0.1, this one's included,
   *     in the same order for every node; empty for a standalone server
   */
  List<String> command(Path work, int httpPort, List<Integer> cluster) throws IOException;

  /** Variables added to the server's environment. */
  default java.util.Map<String, String> environment() {
    return java.util.Map.of();
  }

  /**
   * Ports besides {@code httpPort} and {@code httpPort + 1000} the server binds, standalone or as a
   * node of a cluster.
   */
  default List<Integer> extraPorts(int httpPort, boolean clustered) {
    return List.of();
  }
}
