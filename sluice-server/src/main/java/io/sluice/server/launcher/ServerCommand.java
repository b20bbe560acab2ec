package io.sluice.server.launcher;

import io.sluice.server.ClusterMember;
import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.logging.ServerLogging;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice server}: runs one standalone server in the foreground until Ctrl-C. */
@Command(
    name = "server",
    mixinStandardHelpOptions = true,
    usageHelpWidth = 100,
    versionProvider = SluiceVersion.class,
    description = {
      "Starts sluice-server in the foreground, data on local disk: standalone, or one",
      "node of a cluster (--cluster-conf or --peers).",
      "HTTP (Nacos Open API) on --port, Nacos gRPC on --port + 1000.",
      "Stop it with Ctrl-C."
    })
final class ServerCommand implements Callable<Integer> {
  private static final long READY_TIMEOUT_SECONDS = 120;
  static final long DEFAULT_LOG_MAX_FILE_BYTES = 10L * 1024 * 1024;
  static final int DEFAULT_LOG_MAX_FILES = 5;
  static final String LOG_FILE = "logs/sluice-server.log";

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

  @Option(
      names = "--snapshot-every-entries",
      paramLabel = "N",
      description =
          "Raft log entries between snapshots (default: 10000). The log is purged behind each"
              + " snapshot, keeping N entries more; a node down for longer catches up from a"
              + " snapshot.")
  Long snapshotEveryEntries;

  @Option(
      names = "--auth",
      description =
          "Require a login (Nacos's username/password and access tokens) even on loopback. Auth is"
              + " always on when --bind is beyond loopback. The admin user is 'nacos'; its first"
              + " password comes from SLUICE_ADMIN_PASSWORD, or is generated and printed once.")
  boolean auth;

  @Option(
      names = "--insecure-no-auth",
      description =
          "Serve without auth even when bound beyond loopback (logged loudly at every start).")
  boolean insecureNoAuth;

  @Option(
      names = "--max-config-bytes",
      paramLabel = "BYTES",
      description =
          "Total config content the server holds, counted in characters (default: a quarter of"
              + " the heap); publishes beyond are refused 503.")
  Long maxConfigBytes;

  @Option(
      names = "--max-instance-metadata-bytes",
      paramLabel = "BYTES",
      description =
          "Total metadata of ephemeral instances, counted in characters (default: an eighth of"
              + " the heap); registrations beyond are refused 503.")
  Long maxInstanceMetadataBytes;

  @Option(
      names = "--max-buffered-request-bytes",
      paramLabel = "BYTES",
      description =
          "Request-body bytes buffered at once across all HTTP requests (default: an eighth of"
              + " the heap); requests beyond are refused 503.")
  Long maxBufferedRequestBytes;

  @Option(
      names = "--max-http-connections",
      paramLabel = "N",
      description = "Open HTTP connections; beyond, a request is answered 503 (default: 20000).")
  Integer maxHttpConnections;

  @Option(
      names = "--max-grpc-connections",
      paramLabel = "N",
      description =
          "Client connections on the gRPC port: handshaked transports, and the connections"
              + " clients register on them; beyond, a new transport is closed after its handshake"
              + " and a new registration refused (default: 20000).")
  Integer maxGrpcConnections;

  @Option(
      names = "--max-grpc-handshakes",
      paramLabel = "N",
      description =
          "gRPC sockets that may be handshaking at once; beyond, a new socket is closed at once"
              + " (default: 2048).")
  Integer maxGrpcHandshakes;

  @Option(
      names = "--max-grpc-handshakes-per-address",
      paramLabel = "N",
      description =
          "Of those, how many one client address may hold, so one client cannot lock others out"
              + " (default: 256).")
  Integer maxGrpcHandshakesPerAddress;

  @Option(
      names = "--grpc-handshake-timeout-ms",
      paramLabel = "MS",
      description =
          "A gRPC socket that has not finished its HTTP/2 handshake by then is closed (default:"
              + " 10000).")
  Long grpcHandshakeTimeoutMillis;

  @Option(
      names = "--grpc-transport",
      paramLabel = "NAME",
      description =
          "What serves the Nacos gRPC port: netty-h2 (default: Netty's HTTP/2 codec with a handler"
              + " for Nacos's two methods) or grpc-java (grpc-java's server); see"
              + " docs/operations.md.")
  String grpcTransport;

  @Option(
      names = "--io",
      paramLabel = "NAME",
      description =
          "What carries the gRPC port's sockets: auto (default: Netty's native epoll where it"
              + " loads, on Linux x86-64; Java NIO elsewhere), epoll (refuses to start where it"
              + " does not load) or nio.")
  String io;

  @Option(
      names = "--max-logins-per-minute",
      paramLabel = "N",
      description =
          "Logins each client address may make a minute, in bursts of up to half; beyond, login"
              + " answers 429 (default: 60).")
  Integer maxLoginsPerMinute;

  @Option(
      names = "--min-free-disk-bytes",
      paramLabel = "BYTES",
      description =
          "Writes are refused while the data directory's disk has less free space (default:"
              + " 64 MiB); they resume by themselves.")
  Long minFreeDiskBytes;

  @Option(
      names = "--health-check-cidrs",
      paramLabel = "CIDR",
      split = ",",
      description =
          "Networks persistent instances' health checks may reach, e.g. 10.0.0.0/8 (default:"
              + " any).")
  List<String> healthCheckCidrs;

  @Option(
      names = "--health-check-ports",
      paramLabel = "RANGES",
      description = "Ports health checks may reach, e.g. 80,8000-8999 (default: 1-65535).")
  String healthCheckPorts;

  @Option(
      names = "--health-check-allow-query",
      description = "Let HTTP health check paths carry a query string (refused by default).")
  boolean healthCheckAllowQuery;

  @Option(
      names = "--tls-cert",
      paramLabel = "PEM",
      description =
          "Serve HTTP and gRPC over TLS with this PEM certificate (chain); needs --tls-key.")
  Path tlsCert;

  @Option(
      names = "--tls-key",
      paramLabel = "PEM",
      description = "The PEM (PKCS#8) private key of --tls-cert.")
  Path tlsKey;

  @Option(
      names = "--log-max-file-bytes",
      paramLabel = "BYTES",
      description =
          "The server's log file, DIR/logs/sluice-server.log in JSON lines, is rotated when it"
              + " reaches BYTES (default: ${DEFAULT-VALUE}, at least 4096).")
  long logMaxFileBytes = DEFAULT_LOG_MAX_FILE_BYTES;

  @Option(
      names = "--log-max-files",
      paramLabel = "N",
      description =
          "Keeps at most N log files, the current one included (default: ${DEFAULT-VALUE}, at"
              + " most 100); 0 writes no log file, only the console.")
  int logMaxFiles = DEFAULT_LOG_MAX_FILES;

  /** The environment, read through here so tests can give their own. */
  Function<String, String> environment = System::getenv;

  @Override
  public Integer call() throws InterruptedException {
    ServerOptions options;
    try {
      if (auth && insecureNoAuth) {
        throw new IllegalArgumentException("--auth and --insecure-no-auth contradict each other");
      }
      if (logMaxFiles < 0 || logMaxFiles > 100) {
        throw new IllegalArgumentException("--log-max-files must be 0 to 100, was " + logMaxFiles);
      }
      if (logMaxFiles > 0 && logMaxFileBytes < 4_096) {
        throw new IllegalArgumentException(
            "--log-max-file-bytes must be at least 4096, was " + logMaxFileBytes);
      }
      ServerOptions.Builder builder = ServerOptions.builder();
      if (maxConfigBytes != null) {
        builder.maxConfigBytes(maxConfigBytes);
      }
      if (maxInstanceMetadataBytes != null) {
        builder.maxInstanceMetadataBytes(maxInstanceMetadataBytes);
      }
      if (maxBufferedRequestBytes != null) {
        builder.maxBufferedRequestBytes(maxBufferedRequestBytes);
      }
      if (maxHttpConnections != null) {
        builder.maxHttpConnections(maxHttpConnections);
      }
      if (maxGrpcConnections != null) {
        builder.maxConnections(maxGrpcConnections);
      }
      if (maxGrpcHandshakes != null) {
        builder.maxGrpcHandshakes(maxGrpcHandshakes);
      }
      if (maxGrpcHandshakesPerAddress != null) {
        builder.maxGrpcHandshakesPerAddress(maxGrpcHandshakesPerAddress);
      }
      if (grpcHandshakeTimeoutMillis != null) {
        builder.grpcHandshakeTimeout(Duration.ofMillis(grpcHandshakeTimeoutMillis));
      }
      if (grpcTransport != null) {
        builder.grpcTransport(grpcTransport);
      }
      if (io != null) {
        builder.ioTransport(io);
      }
      if (maxLoginsPerMinute != null) {
        builder.maxLoginsPerMinute(maxLoginsPerMinute);
      }
      if (tlsCert != null || tlsKey != null) {
        if (tlsCert == null || tlsKey == null) {
          throw new IllegalArgumentException("--tls-cert and --tls-key go together");
        }
        builder.tls(tlsCert, tlsKey);
      }
      if (minFreeDiskBytes != null) {
        builder.minFreeDiskBytes(minFreeDiskBytes);
      }
      if (healthCheckCidrs != null || healthCheckPorts != null || healthCheckAllowQuery) {
        builder.healthCheckTargets(
            healthCheckCidrs == null ? List.of("0.0.0.0/0", "::/0") : healthCheckCidrs,
            healthCheckPorts == null ? "1-65535" : healthCheckPorts,
            healthCheckAllowQuery);
      }
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
      if (snapshotEveryEntries != null) {
        builder.snapshotEveryEntries(snapshotEveryEntries);
      }
      options =
          builder
              .raftPortOffset(raftPortOffset)
              .httpPort(port)
              .bindAddress(bind)
              .dataDir(dataDir)
              .authMode(
                  auth
                      ? ServerOptions.AuthMode.ON
                      : insecureNoAuth ? ServerOptions.AuthMode.OFF : ServerOptions.AuthMode.AUTO)
              .initialAdminPassword(environment.apply("SLUICE_ADMIN_PASSWORD"))
              .build();
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
    if (logMaxFiles > 0) {
      Path logFile = options.dataDir().resolve(LOG_FILE);
      try {
        ServerLogging.writeToFile(logFile, logMaxFileBytes, logMaxFiles);
      } catch (IOException | RuntimeException e) {
        System.err.println(
            "sluice server: cannot write the log file "
                + logFile
                + ": "
                + e
                + " (--log-max-files 0 runs without one)");
        return 2;
      }
    }
    SluiceServer server;
    try {
      server = SluiceServer.start(options);
    } catch (RuntimeException e) {
      System.err.println("sluice server: could not start: " + describe(e));
      ServerLogging.closeFile();
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
      ServerLogging.closeFile();
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
                  ServerLogging.closeFile();
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
        "sluice server ready%s: HTTP %s/nacos, gRPC %s:%d%s, data %s, auth %s%s%n",
        since,
        server.httpAddress(),
        options.bindAddress(),
        server.httpPort() + ServerOptions.GRPC_PORT_OFFSET,
        options.tls() ? " (TLS)" : "",
        options.dataDir().toAbsolutePath().normalize(),
        options.authEnabled() ? "on" : "off",
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
