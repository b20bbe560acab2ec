package io.sluice.bench.competitors;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.stream.Stream;

/**
 * Open-source Nacos, run from its standalone server distribution (the directory that holds {@code
 * target/nacos-server.jar} and {@code conf/}), as its {@code bin/startup.sh -m standalone} would
 * run it, with these differences, all of them settings Nacos reads:
 *
 * <ul>
 *   <li>the JVM in the foreground (startup.sh puts it in the background with {@code nohup}), so the
 *       harness holds its PID;
 *   <li>a 1 GB heap ({@code -Xms1g -Xmx1g}; startup.sh gives standalone 512 MB);
 *   <li>{@code nacos.home} in a fresh directory per start, so each start has an empty embedded
 *       (Derby) store and its own logs; the distribution's {@code conf/} is copied there;
 *   <li>the HTTP port and address from the harness ({@code --server.port}, {@code
 *       --server.address=127.0.0.1}), and {@code nacos.inetutils.ip-address=127.0.0.1}.
 * </ul>
 *
 * Standalone mode, embedded storage and auth off are the distribution's defaults ({@code
 * nacos.core.auth.enabled=false} in its {@code application.properties}). As a node of a cluster it
 * runs as Nacos's documented pseudo-cluster on one host: {@code -Dnacos.standalone=false}, still
 * with {@code -DembeddedStorage=true} (config in Derby, replicated by Nacos's JRaft group, so no
 * MySQL), and a {@code conf/cluster.conf} naming every node as {@code 127.0.0.1:port}. Nacos binds
 * its gRPC ports ({@code port + 1000}, {@code port + 1001}) and its Raft port ({@code port - 1000})
 * on every interface with no setting to change that; run the harness in a network namespace of its
 * own ({@code unshare -n}, see the README) to keep them on loopback.
 */
record NacosUnderTest(Path distribution, String java, String heap) implements ServerUnderTest {
  NacosUnderTest {
    if (!Files.isRegularFile(distribution.resolve("target/nacos-server.jar"))) {
      throw new IllegalArgumentException(
          distribution + " is not a Nacos server distribution (no target/nacos-server.jar)");
    }
  }

  @Override
  public String name() {
    return "nacos";
  }

  @Override
  public List<Integer> extraPorts(int httpPort, boolean clustered) {
    return List.of(httpPort + 1001, httpPort - 1000);
  }

  @Override
  public List<String> command(Path work, int httpPort, List<Integer> cluster) throws IOException {
    Path conf = work.resolve("conf");
    Files.createDirectories(conf);
    try (Stream<Path> files = Files.list(distribution.resolve("conf"))) {
      for (Path file : files.toList()) {
        Files.copy(file, conf.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    if (!cluster.isEmpty()) {
      Files.write(
          conf.resolve("cluster.conf"), cluster.stream().map(p -> "127.0.0.1:" + p).toList());
    }
    return List.of(
        java,
        "-Xms" + heap,
        "-Xmx" + heap,
        "-Dnacos.standalone=" + cluster.isEmpty(),
        "-DembeddedStorage=true",
        "-Dnacos.home=" + work,
        "-Dnacos.inetutils.ip-address=127.0.0.1",
        "-jar",
        distribution.resolve("target/nacos-server.jar").toString(),
        "--spring.config.additional-location=" + conf + "/",
        "--logging.config=" + conf.resolve("nacos-logback.xml"),
        "--server.port=" + httpPort,
        "--server.address=127.0.0.1");
  }
}
