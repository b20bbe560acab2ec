package io.sluice.server;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.config.ConfigFeature;
import io.sluice.server.config.ConfigService;
import io.sluice.server.config.grpc.ConfigGrpcHandlers;
import io.sluice.server.config.http.ConfigHttpApi;
import io.sluice.server.connection.ConnectionRoutes;
import io.sluice.server.feature.ReplicatedWrites;
import io.sluice.server.namespace.NamespaceFeature;
import io.sluice.server.namespace.NamespaceService;
import io.sluice.server.namespace.http.NamespaceRoutes;
import io.sluice.server.naming.BeatMonitor;
import io.sluice.server.naming.NamingPushes;
import io.sluice.server.naming.NamingService;
import io.sluice.server.naming.NamingStore;
import io.sluice.server.naming.ServiceRegistry;
import io.sluice.server.naming.grpc.NamingGrpcHandlers;
import io.sluice.server.naming.health.HealthChecker;
import io.sluice.server.naming.health.VertxHealthProbe;
import io.sluice.server.naming.http.NamingHttpRoutes;
import io.sluice.server.protocol.grpc.ConnectionRegistry;
import io.sluice.server.protocol.grpc.GrpcServer;
import io.sluice.server.protocol.grpc.IdleConnectionEjector;
import io.sluice.server.protocol.grpc.MessageCodec;
import io.sluice.server.protocol.grpc.RequestRouter;
import io.sluice.server.protocol.http.HttpApiServer;
import io.sluice.server.replication.ReplicationOptions;
import io.sluice.server.replication.ReplicationPeer;
import io.sluice.server.replication.ReplicatorFactory;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.ratis.util.ExitUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The root object of a running server: it builds every component from {@link ServerOptions}, starts
 * them in order and closes them in reverse. There is no other global state; tests start as many
 * servers as they like in one JVM.
 */
public final class SluiceServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SluiceServer.class);

  /** How often connections are checked for silence and overdue pushes. */
  private static final long CONNECTION_SWEEP_MILLIS = 500;

  private static final int MAX_PENDING_PUSHES_PER_CONNECTION = 1_024;

  private final ServerOptions options;
  private final Deque<AutoCloseable> closeInReverse;
  private final HttpApiServer httpApi;
  private final GrpcServer grpc;
  private final StartingReplicator replicator;
  private final ConfigService config;
  private final NamingService naming;
  private final ConnectionRegistry connections;
  private final NamespaceService namespaces;
  private final ConfigHttpApi configHttp;
  private final AtomicBoolean closed = new AtomicBoolean();

  private SluiceServer(
      ServerOptions options,
      Deque<AutoCloseable> closeInReverse,
      HttpApiServer httpApi,
      GrpcServer grpc,
      StartingReplicator replicator,
      ConfigService config,
      NamingService naming,
      ConnectionRegistry connections,
      NamespaceService namespaces,
      ConfigHttpApi configHttp) {
    this.options = options;
    this.closeInReverse = closeInReverse;
    this.httpApi = httpApi;
    this.grpc = grpc;
    this.replicator = replicator;
    this.config = config;
    this.naming = naming;
    this.connections = connections;
    this.namespaces = namespaces;
    this.configHttp = configHttp;
  }

  /** Starts a standalone server whose store is a one-peer Ratis group in the data directory. */
  public static SluiceServer start(ServerOptions options) {
    return start(options, ReplicatorFactory.RATIS);
  }

  /** What the store is started with: a one-peer group in the data directory. */
  private static ReplicationOptions replicationOptions(ServerOptions options) {
    return ReplicationOptions.builder(options.dataDir().resolve("ratis"))
        .self(
            new ReplicationPeer(
                ReplicationOptions.DEFAULT_PEER_ID, options.bindAddress(), options.raftPort()))
        // A command carries the content once, plus its metadata.
        .maxCommandBytes((int) Math.min(Integer.MAX_VALUE, options.maxContentBytes() + 64 * 1024))
        .build();
  }

  /**
   * Starts a server and returns once it listens; it answers "starting" to clients until its store
   * is ready ({@link #awaitReady}). Throws if any part fails to start, after closing what started.
   */
  public static SluiceServer start(ServerOptions options, ReplicatorFactory replication) {
    // Ratis calls System.exit when, for one, its port is taken. A server (or a test JVM holding
    // several) must report that and stay up, so turn it into an exception. Ratis only offers
    // this as a process-wide switch.
    ExitUtils.disableSystemExit();
    Deque<AutoCloseable> started = new ArrayDeque<>();
    try {
      return start(options, replication, started);
    } catch (RuntimeException e) {
      closeAll(started);
      throw e;
    }
  }

  private static SluiceServer start(
      ServerOptions options, ReplicatorFactory replication, Deque<AutoCloseable> started) {
    try {
      Files.createDirectories(options.dataDir());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create data directory " + options.dataDir(), e);
    }
    ServerClock clock = ServerClock.SYSTEM;
    ScheduledThreadPoolExecutor scheduler =
        new ScheduledThreadPoolExecutor(1, daemonThreads("sluice-scheduler"));
    scheduler.setRemoveOnCancelPolicy(true);
    started.push(() -> shutdown(scheduler));
    ExecutorService fanout = Executors.newSingleThreadExecutor(daemonThreads("sluice-fanout"));
    started.push(() -> shutdown(fanout));

    ServiceRegistry services = new ServiceRegistry(clock);
    NamingStore namingStore = new NamingStore(services);

    // The store opens its log and elects itself while the ports start.
    StartingReplicator replicator = new StartingReplicator();
    started.push(replicator);
    ReplicatedWrites writes = new ReplicatedWrites(replicator);
    ConfigFeature configFeature =
        new ConfigFeature(
            options.dataDir().resolve("config-history"),
            options.maxContentBytes(),
            fanout,
            writes,
            clock);
    started.push(configFeature);
    configFeature.purgeHistory(scheduler, clock, options.historyRetention());
    ConfigService config = configFeature.service();
    NamespaceFeature namespaceFeature =
        new NamespaceFeature(writes, clock, () -> UUID.randomUUID().toString());
    NamespaceService namespaces = namespaceFeature.service();
    replicator.start(
        () ->
            replication.start(
                replicationOptions(options),
                List.of(configFeature.state(), namingStore, namespaceFeature.state())));

    ScheduledThreadPoolExecutor pushThread =
        new ScheduledThreadPoolExecutor(1, daemonThreads("sluice-push"));
    pushThread.setRemoveOnCancelPolicy(true);
    started.push(() -> shutdown(pushThread));
    NamingPushes pushes = new NamingPushes(services, pushThread, options.pushDelay().toMillis());
    scheduler.scheduleWithFixedDelay(services::forgetIdleRenderings, 30, 30, TimeUnit.SECONDS);
    services.onChange(pushes);
    NamingService naming = new NamingService(services, pushes, writes);

    MessageCodec codec = new MessageCodec();
    RequestRouter router = new RequestRouter(codec);
    ConnectionRegistry connections =
        new ConnectionRegistry(
            clock, codec, options.maxConnections(), MAX_PENDING_PUSHES_PER_CONNECTION);
    long pushAckMillis = options.pushAckTimeout().toMillis();
    ConfigGrpcHandlers.install(config, router, connections, scheduler, pushAckMillis);
    NamingGrpcHandlers.install(naming, router, connections, pushThread, pushAckMillis);

    int eventLoops = Math.min(2, Runtime.getRuntime().availableProcessors());
    GrpcServer grpc =
        GrpcServer.start(
            options.bindAddress(),
            options.grpcPort(),
            eventLoops,
            maxMessageBytes(options),
            connections,
            router,
            codec,
            replicator::isReady,
            clock);
    started.push(grpc);
    started.push(
        new IdleConnectionEjector(
            connections,
            clock,
            scheduler,
            CONNECTION_SWEEP_MILLIS,
            options.connectionIdleTimeout().toMillis(),
            options.connectionProbeTimeout().toMillis()));

    Vertx vertx =
        Vertx.vertx(
            new VertxOptions()
                .setEventLoopPoolSize(eventLoops)
                .setWorkerPoolSize(2)
                .setInternalBlockingPoolSize(2));
    started.push(() -> HttpApiServer.await(vertx.close()));
    BeatMonitor beats =
        new BeatMonitor(
            services, clock, options.maxConnections(), BeatMonitor.DEFAULT_MAX_SERVICES_PER_CLIENT);
    beats.start(scheduler, BeatMonitor.DEFAULT_SWEEP_MILLIS);
    VertxHealthProbe probe =
        new VertxHealthProbe(
            vertx, options.healthCheckTimeout().toMillis(), HealthChecker.DEFAULT_MAX_IN_FLIGHT);
    started.push(probe);
    HealthChecker healthChecker =
        new HealthChecker(
            services, probe, HealthChecker.DEFAULT_MAX_IN_FLIGHT, HealthChecker.DEFAULT_FLIP_AFTER);
    started.push(healthChecker);
    healthChecker.start(scheduler, options.healthCheckInterval().toMillis());
    ConfigHttpApi configHttp = new ConfigHttpApi(config, vertx, clock, options.maxConnections());
    NamespaceRoutes namespaceHttp = new NamespaceRoutes(namespaces, config::countByNamespace);
    HttpApiServer httpApi =
        HttpApiServer.start(
            vertx,
            options.bindAddress(),
            options.httpPort(),
            replicator::isReady,
            List.of(
                configHttp,
                namespaceHttp,
                new ConnectionRoutes(connections),
                httpRouter ->
                    NamingHttpRoutes.mount(
                        httpRouter, naming, beats, replicator::isReady, connections::size)));
    started.push(httpApi);
    log.debug("started with {}", options);
    return new SluiceServer(
        options,
        started,
        httpApi,
        grpc,
        replicator,
        config,
        naming,
        connections,
        namespaces,
        configHttp);
  }

  /**
   * gRPC refuses larger messages before decoding them. Content is at most the configured limit;
   * JSON escaping can double it (a newline becomes two characters), plus room for the envelope.
   */
  private static int maxMessageBytes(ServerOptions options) {
    long bytes = options.maxContentBytes() * 2 + 64 * 1024;
    return (int) Math.min(Integer.MAX_VALUE, bytes);
  }

  /** Waits until the store is ready to serve; false on timeout or when it failed to start. */
  public boolean awaitReady(long timeout, TimeUnit unit) {
    try {
      replicator.ready().get(timeout, unit);
      return true;
    } catch (Exception e) {
      return replicator.isReady();
    }
  }

  /** Why the store failed to start, or null while it is starting or running. */
  public Throwable startupFailure() {
    return replicator.failure();
  }

  public boolean isReady() {
    return replicator.isReady();
  }

  public ServerOptions options() {
    return options;
  }

  public ConfigService config() {
    return config;
  }

  public NamingService naming() {
    return naming;
  }

  public ConnectionRegistry connections() {
    return connections;
  }

  public NamespaceService namespaces() {
    return namespaces;
  }

  /** HTTP long-polls held now, waiting for a config change or their deadline. */
  public int heldLongPolls() {
    return configHttp.heldPolls();
  }

  /** The HTTP port actually bound (differs from the option when it was 0). */
  public int httpPort() {
    return httpApi.port();
  }

  public int grpcPort() {
    return grpc.port();
  }

  public String httpAddress() {
    return "http://" + options.bindAddress() + ":" + httpPort();
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    closeAll(closeInReverse);
  }

  private static void closeAll(Deque<AutoCloseable> started) {
    while (!started.isEmpty()) {
      AutoCloseable component = started.pop();
      try {
        component.close();
      } catch (Exception e) {
        log.warn("error while closing {}", component, e);
      }
    }
  }

  private static void shutdown(ExecutorService executor) throws InterruptedException {
    executor.shutdownNow();
    executor.awaitTermination(5, TimeUnit.SECONDS);
  }

  private static ThreadFactory daemonThreads(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }
}
