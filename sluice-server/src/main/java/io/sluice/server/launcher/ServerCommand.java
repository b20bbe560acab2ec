package io.sluice.server.launcher;

import io.sluice.server.ClusterMember;
import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice server}: runs one standalone server in the foreground until Ctrl-C. */
@Command(
    name = "server",
    mixinStandardHelpOptions = true,
    versionProvider = SluiceVersion.class,
    description = {
      "Starts sluice-server in the foreground, data on local disk: standalone, or one",
      "node of a cluster (--cluster-conf or --peers).",
      "HTTP (Nacos Open API) on --port, Nacos gRPC on --port + 1000.",
      "Stop it with Ctrl-C."
    })
final class ServerCommand implements Callable<Integer> {
  private static final long READY_TIMEOUT_SECONDS = 120;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      description = "HTTP port; gRPC on PORT + 1000 (default: ${DEFAULT-VALUE}).")
  int port = ServerOptions.DEFAULT_HTTP_PORT;

  @Option(
      names = "--bind",
      paramLabel = "ADDRESS",
      description = "Address to listen on (default: ${DEFAULT-VALUE}).")
  String bind = ServerOptions.DEFAULT_BIND_ADDRESS;

  @Option(
      names = "--data-dir",
      paramLabel = "DIR",
      description = "Where the durable store lives (default: ./${DEFAULT-VALUE}).")
  Path dataDir = ServerOptions.DEFAULT_DATA_DIR;

  @Option(
      names = "--cluster-conf",
      paramLabel = "FILE",
      description =
          "Runs as one node of the cluster listed in FILE, Nacos's cluster.conf format: one"
              + " ip[:port] a line (port 8848 when omitted), # comments. This node is the entry"
              + " with --bind and --port. Without it (or --peers) the server is standalone.")
  Path clusterConf;

  @Option(
      names = "--peers",
      paramLabel = "LIST",
      description =
          "The cluster list inline, host:port,host:port,..., this node included (instead of"
              + " --cluster-conf).")
  String peers;

  @Option(
      names = "--raft-port-offset",
      paramLabel = "N",
      description =
          "In a cluster, each node's Raft port is its HTTP port minus N (default: ${DEFAULT-VALUE},"
              + " Nacos's convention).")
  int raftPortOffset = ServerOptions.DEFAULT_RAFT_PORT_OFFSET;

  @Option(
      names = "--election-timeout-ms",
      paramLabel = "MS",
      description =
          "In a cluster, the lower Raft election timeout (the upper is twice it; default 500)."
              + " Shorter fails over faster but risks needless elections on a busy machine.")
  Long electionTimeoutMillis;

  @Option(
      names = "--owner-timeout-ms",
      paramLabel = "MS",
      description =
          "In a cluster, how long a node may be silent before the ephemeral instances its clients"
              + " registered are removed on every node (default: 10000).")
  Long ownerTimeoutMillis;

  @Override
  public Integer call() throws InterruptedException {
    ServerOptions options;
    try {
      ServerOptions.Builder builder =
          ServerOptions.builder()
              .httpPort(port)
              .bindAddress(bind)
              .dataDir(dataDir)
              .raftPortOffset(raftPortOffset);
      if (clusterConf != null && peers != null) {
        throw new IllegalArgumentException("give the cluster list once: --cluster-conf or --peers");
      }
      if (clusterConf != null) {
        builder.clusterMembers(ClusterMember.readClusterConf(clusterConf));
      } else if (peers != null) {
        builder.clusterMembers(ClusterMember.parseList(peers));
      }
      if (ownerTimeoutMillis != null) {
        builder.ephemeralOwnerTimeout(Duration.ofMillis(ownerTimeoutMillis));
      }
      if (electionTimeoutMillis != null) {
        builder.electionTimeout(Duration.ofMillis(electionTimeoutMillis));
      }
      options = builder.build();
      if (!options.standalone()) {
        options.self();
      }
    } catch (IllegalArgumentException e) {
      System.err.println("sluice server: " + e.getMessage());
      return 2;
    } catch (IOException e) {
      System.err.println("sluice server: cannot read the cluster list " + clusterConf + ": " + e);
      return 2;
    }
    SluiceServer server;
    try {
      server = SluiceServer.start(options);
    } catch (RuntimeException e) {
      System.err.println("sluice server: could not start: " + describe(e));
      return 1;
    }
    if (!server.awaitReady(READY_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      Throwable failure = server.startupFailure();
      System.err.println(
          failure != null
              ? "sluice server: could not start the store: " + describe(failure)
              : "sluice server: the store did not become ready within "
                  + READY_TIMEOUT_SECONDS
                  + " s");
      server.close();
      return 1;
    }
    printReady(System.out, server);

    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  System.out.println("sluice server: stopping");
                  server.close();
                  System.out.println("sluice server: stopped");
                  stopped.countDown();
                },
                "sluice-shutdown"));
    stopped.await();
    return 0;
  }

  private static void printReady(PrintStream out, SluiceServer server) {
    ServerOptions options = server.options();
    String since =
        ProcessHandle.current()
            .info()
            .startInstant()
            .map(
                start ->
                    String.format(
                        Locale.ROOT,
                        " in %.2f s",
                        Duration.between(start, Instant.now()).toMillis() / 1000.0))
            .orElse("");
    out.printf(
        "sluice server ready%s: HTTP %s/nacos, gRPC %s:%d, data %s%s%n",
        since,
        server.httpAddress(),
        options.bindAddress(),
        server.httpPort() + ServerOptions.GRPC_PORT_OFFSET,
        options.dataDir().toAbsolutePath().normalize(),
        options.standalone()
            ? ""
            : String.format(
                Locale.ROOT,
                ", cluster of %d, Raft on %s:%d",
                options.clusterMembers().size(),
                options.bindAddress(),
                options.raftPort()));
    out.flush();
  }

  private static String describe(Throwable e) {
    StringBuilder message = new StringBuilder(String.valueOf(e.getMessage()));
    for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
      message.append(": ").append(cause.getMessage());
    }
    return message.toString();
  }
}
