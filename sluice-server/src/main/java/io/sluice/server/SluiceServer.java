package io.sluice.server;

import io.sluice.server.auth.AuthFeature;
import io.sluice.server.auth.AuthService;
import io.sluice.server.auth.LoginThrottle;
import io.sluice.server.auth.grpc.GrpcAccessRules;
import io.sluice.server.auth.http.AuthRoutes;
import io.sluice.server.auth.http.HttpAccessRules;
import io.sluice.server.clock.ServerClock;
import io.sluice.server.cluster.http.ClusterRoutes;
import io.sluice.server.cluster.http.ClusterView;
import io.sluice.server.cluster.http.MemberCalls;
import io.sluice.server.cluster.http.MembershipChanges;
import io.sluice.server.config.ConfigFeature;
import io.sluice.server.config.ConfigService;
import io.sluice.server.config.grpc.ConfigGrpcHandlers;
import io.sluice.server.config.http.ConfigHttpApi;
import io.sluice.server.connection.ConnectionRoutes;
import io.sluice.server.console.ConsoleRoutes;
import io.sluice.server.console.RuleRoutes;
import io.sluice.server.feature.ReplicatedWrites;
import io.sluice.server.metrics.ServerMetrics;
import io.sluice.server.namespace.NamespaceFeature;
import io.sluice.server.namespace.NamespaceService;
import io.sluice.server.namespace.http.NamespaceRoutes;
import io.sluice.server.naming.NamingFeature;
import io.sluice.server.naming.NamingService;
import io.sluice.server.naming.grpc.NamingGrpcHandlers;
import io.sluice.server.naming.health.RestrictedHealthProbe;
import io.sluice.server.naming.health.VertxHealthProbe;
import io.sluice.server.naming.http.NamingHttpApi;
import io.sluice.server.protocol.ClientFaultLog;
import io.sluice.server.protocol.grpc.Connection;
import io.sluice.server.protocol.grpc.ConnectionRegistry;
import io.sluice.server.protocol.grpc.GrpcServer;
import io.sluice.server.protocol.grpc.IdleConnectionEjector;
import io.sluice.server.protocol.grpc.IoTransport;
import io.sluice.server.protocol.grpc.MessageCodec;
import io.sluice.server.protocol.grpc.NettyIo;
import io.sluice.server.protocol.grpc.RequestRouter;
import io.sluice.server.protocol.http.HttpAccess;
import io.sluice.server.protocol.http.HttpApiServer;
import io.sluice.server.protocol.http.HttpLimits;
import io.sluice.server.protocol.http.Readiness;
import io.sluice.server.replication.GroupStatus;
import io.sluice.server.replication.ReplicatedState;
import io.sluice.server.replication.ReplicationOptions;
import io.sluice.server.replication.ReplicationPeer;
import io.sluice.server.replication.ReplicatorFactory;
import io.sluice.server.traffic.TrafficStore;
import io.sluice.server.traffic.http.TrafficRoutes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.ratis.util.ExitUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The root object of a running server: it builds every part from {@link ServerOptions}, starts them
 * in order and closes them in reverse. There is no other global state; tests start as many servers
 * as they like in one JVM.
 *
 * <p>Assembly, one step per part: the threads; the replicator the features write through (started
 * once every feature's state is known, and opening its log while the ports start); each feature
 * (config, naming, namespaces, auth) with its door; the gRPC port with each feature's handlers; the
 * HTTP port with each feature's routes.
 */
public final class SluiceServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SluiceServer.class);

  /** How often connections are checked for silence and overdue pushes. */
  private static final long CONNECTION_SWEEP_MILLIS = 500;

  private static final int MAX_PENDING_PUSHES_PER_CONNECTION = 1_024;

  /** In a cluster, how long a node keeps trying to bootstrap auth, and how often. */
  private static final long BOOTSTRAP_PATIENCE_MILLIS = 60_000;

  private static final long BOOTSTRAP_RETRY_MILLIS = 500;

  /** How long a stopping cluster node waits for its clients to move to other nodes. */
  private static final long CLIENT_MOVE_TIMEOUT_MILLIS = 3_000;

  /** How often instances that stopped reporting traffic are looked for. */
  private static final long TRAFFIC_SWEEP_SECONDS = 10;

  private final ServerOptions options;
  private final Deque<AutoCloseable> closeInReverse;
  private final StartingReplicator replicator;
  private final ConfigService config;
  private final NamingService naming;
  private final NamespaceService namespaces;
  private final AuthService auth;
  private final CompletableFuture<Void> ready;
  private final ConnectionRegistry connections;
  private final GrpcServer grpc;
  private final ConfigHttpApi configHttp;
  private final HttpApiServer httpApi;
  private final AtomicBoolean closed = new AtomicBoolean();

  private SluiceServer(
      ServerOptions options,
      Deque<AutoCloseable> closeInReverse,
      StartingReplicator replicator,
      ConfigService config,
      NamingService naming,
      NamespaceService namespaces,
      AuthService auth,
      CompletableFuture<Void> ready,
      ConnectionRegistry connections,
      GrpcServer grpc,
      ConfigHttpApi configHttp,
      HttpApiServer httpApi) {
    this.options = options;
    this.closeInReverse = closeInReverse;
    this.replicator = replicator;
    this.config = config;
    this.naming = naming;
    this.namespaces = namespaces;
    this.auth = auth;
    this.ready = ready;
    this.connections = connections;
    this.grpc = grpc;
    this.configHttp = configHttp;
    this.httpApi = httpApi;
  }

  /** Starts a standalone server whose store is a one-peer Ratis group in the data directory. */
  public static SluiceServer start(ServerOptions options) {
    return start(options, ReplicatorFactory.RATIS);
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
    // First, so a node missing from its own cluster list, or --io epoll where Netty cannot load
    // it, fails before anything starts.
    ReplicationOptions replicationOptions = replicationOptions(options);
    NettyIo io = NettyIo.choose(options.ioTransport());
    try {
      Files.createDirectories(options.dataDir());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create data directory " + options.dataDir(), e);
    }
    ServerClock clock = ServerClock.SYSTEM;
    ServerThreads threads = new ServerThreads();
    started.push(threads);
    StartingReplicator replicator = new StartingReplicator(options.standalone());
    DiskSpaceGuard disk =
        new DiskSpaceGuard(options.dataDir(), options.minFreeDiskBytes(), threads.storeSupervisor);
    started.push(disk);
    ReplicatedWrites writes = new ReplicatedWrites(replicator, disk, clock);
    ServerMetrics metrics = new ServerMetrics();

    ConfigFeature config = config(options, threads, writes, clock, started);
    NamingFeature naming = naming(options, threads, writes, clock, replicator, started);
    NamespaceFeature namespaces =
        new NamespaceFeature(writes, clock, () -> UUID.randomUUID().toString());
    AuthFeature auth =
        new AuthFeature(
            writes, clock, threads.hashing, options.authEnabled(), options.tokenTtl().toSeconds());
    warnAboutExposure(options);
    ClientFaultLog faults = new ClientFaultLog(clock, threads.faultLogWriter);

    // The store opens its log and elects itself while the ports start. It closes before the
    // features: its final snapshot still reads them (and syncs config history).
    started.push(replicator);
    replicator.start(
        () -> {
          List<ReplicatedState> states = new ArrayList<>(states(config, naming, namespaces));
          states.add(auth.state());
          return replication.start(replicationOptions, states);
        });
    // A log that failed on a full disk, a dead Ratis thread, a member Ratis shut down: refuse
    // writes with the reason and restart the engine in-process once the disk lets it.
    replicator.supervise(threads.storeSupervisor, disk, clock);
    // With auth on, the server serves once the installation's token key and admin exist.
    CompletableFuture<Void> ready =
        auth.service().enabled()
            ? replicator
                .ready()
                .thenCompose(storeReady -> bootstrapAuth(auth.service(), options, threads))
            : replicator.ready();
    BooleanSupplier serving =
        auth.service().enabled()
            ? () -> replicator.isReady() && auth.service().hasKey()
            : replicator::isReady;

    Readiness readiness = () -> whyNotReady(serving, replicator, disk, writes);

    GrpcPort grpc =
        grpcPort(
            options,
            io,
            threads,
            clock,
            serving,
            config,
            naming,
            auth.service(),
            faults,
            metrics,
            started);
    // What each node holds alone (agents' traffic, clients' subscriptions and listeners) is asked
    // of the other members for the console, on the caller's behalf.
    MemberCalls members =
        new MemberCalls(
            () -> clusterView(options, replicator), threads.vertx, options.tlsCertificate(), clock);
    ConfigHttpApi configHttp =
        new ConfigHttpApi(
            config.service(), threads.vertx, clock, options.maxConnections(), members);
    TrafficStore traffic = traffic(clock, threads);
    HttpApiServer httpApi =
        HttpApiServer.start(
            threads.vertx,
            options.bindAddress(),
            options.httpPort(),
            readiness,
            auth.service().enabled() ? new HttpAccessRules(auth.service()) : HttpAccess.OPEN,
            new HttpLimits(
                options.maxHttpConnections(),
                options.httpIdleTimeout(),
                options.httpHeaderTimeout(),
                options.maxBufferedRequestBytes()),
            faults,
            options.tlsCertificate(),
            options.tlsPrivateKey(),
            List.of(
                configHttp,
                new NamingHttpApi(naming.service(), serving, grpc.connections()::size, members),
                new NamespaceRoutes(namespaces.service(), config.service()::countByNamespace),
                new ConnectionRoutes(grpc.connections()),
                new ClusterRoutes(
                    () -> clusterView(options, replicator),
                    options.standalone()
                        ? MembershipChanges.NONE
                        : new StoreMembershipChanges(options, replicator),
                    version(),
                    members,
                    grpc.connections()::size),
                new AuthRoutes(
                    auth.service(),
                    new LoginThrottle(
                        clock, options.maxLoginsPerMinute(), options.maxLoginsPerMinute() / 2)),
                // Observability and the console (issue 14).
                new TrafficRoutes(traffic, members, faults),
                new RuleRoutes(config.service()),
                new ConsoleRoutes()),
            clock,
            metrics);
    started.push(httpApi);
    ServerGauges.register(
        metrics,
        config.service(),
        naming.service(),
        grpc.connections(),
        grpc.server(),
        httpApi,
        configHttp,
        writes,
        traffic,
        serving);
    log.debug("started with {}", options);
    return new SluiceServer(
        options,
        started,
        replicator,
        config.service(),
        naming.service(),
        namespaces.service(),
        auth.service(),
        ready,
        grpc.connections(),
        grpc.server(),
        configHttp,
        httpApi);
  }

  /**
   * The token key and the admin user, once the store is ready. In a cluster every node bootstraps
   * when it joins, and a write can meet an election and fail with its outcome unknown; every step
   * keeps what exists, so a failed bootstrap is tried again, every {@link #BOOTSTRAP_RETRY_MILLIS},
   * for up to {@link #BOOTSTRAP_PATIENCE_MILLIS}.
   */
  private static CompletableFuture<Void> bootstrapAuth(
      AuthService auth, ServerOptions options, ServerThreads threads) {
    if (options.standalone()) {
      return auth.bootstrap(options.initialAdminPassword());
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BOOTSTRAP_PATIENCE_MILLIS);
    attemptBootstrap(auth, options.initialAdminPassword(), threads, deadline, done);
    return done;
  }

  private static void attemptBootstrap(
      AuthService auth,
      String password,
      ServerThreads threads,
      long deadline,
      CompletableFuture<Void> done) {
    auth.bootstrap(password)
        .whenComplete(
            (ignored, failure) -> {
              if (failure == null) {
                done.complete(null);
                return;
              }
              if (System.nanoTime() > deadline) {
                done.completeExceptionally(failure);
                return;
              }
              log.debug("auth bootstrap failed; retrying: {}", failure.toString());
              try {
                threads.scheduler.schedule(
                    () -> attemptBootstrap(auth, password, threads, deadline, done),
                    BOOTSTRAP_RETRY_MILLIS,
                    TimeUnit.MILLISECONDS);
              } catch (RuntimeException closing) {
                done.completeExceptionally(failure);
              }
            });
  }

  /**
   * Says once, loudly, what binding beyond loopback exposes: with auth, that the network can reach
   * the ports; without it (chosen explicitly), that anyone who can reach them controls the server.
   */
  private static void warnAboutExposure(ServerOptions options) {
    if (options.bindsLoopbackOnly()) {
      if (options.authEnabled()) {
        log.info("auth is on: requests need a token from POST /nacos/v1/auth/users/login");
      }
      return;
    }
    if (options.authEnabled()) {
      log.warn(
          "listening on {}, beyond loopback: auth is on; consider TLS and a firewall",
          options.bindAddress());
    } else {
      log.error(
          "INSECURE: listening on {}, beyond loopback, with auth turned OFF: anyone who can reach"
              + " the ports can read and change every config and instance",
          options.bindAddress());
    }
  }

  /**
   * What readiness answers: null when the server serves; otherwise why not (the store cannot
   * commit, starting, the store failed to start, the disk nearly full, the store's last write
   * failed).
   */
  private static String whyNotReady(
      BooleanSupplier serving,
      StartingReplicator replicator,
      DiskSpaceGuard disk,
      ReplicatedWrites writes) {
    String removal = replicator.removal();
    if (removal != null) {
      return removal;
    }
    String broken = replicator.whyBroken();
    if (broken != null) {
      return "the store cannot commit writes: " + broken;
    }
    if (!serving.getAsBoolean()) {
      Throwable failure = replicator.failure();
      return failure == null
          ? "server is starting"
          : "the store failed to start: " + failure.getMessage();
    }
    String refusal = disk.refusal();
    if (refusal != null) {
      return refusal;
    }
    String failed = writes.lastStoreFailure();
    return failed == null ? null : "the store could not commit its last write: " + failed;
  }

  /** The agents' traffic, kept for the console; instances silent too long forgotten. */
  private static TrafficStore traffic(ServerClock clock, ServerThreads threads) {
    TrafficStore traffic = new TrafficStore(clock);
    threads.scheduler.scheduleWithFixedDelay(
        traffic::expire, TRAFFIC_SWEEP_SECONDS, TRAFFIC_SWEEP_SECONDS, TimeUnit.SECONDS);
    return traffic;
  }

  /** The config center, its history purged on the scheduler. */
  private static ConfigFeature config(
      ServerOptions options,
      ServerThreads threads,
      ReplicatedWrites writes,
      ServerClock clock,
      Deque<AutoCloseable> started) {
    ConfigFeature config =
        new ConfigFeature(
            options.dataDir().resolve("config-history"),
            options.maxContentBytes(),
            options.maxConfigBytes(),
            threads.fanout,
            writes,
            clock);
    started.push(config);
    config.purgeHistory(threads.scheduler, clock, options.historyRetention());
    return config;
  }

  private static List<ReplicatedState> states(
      ConfigFeature config, NamingFeature naming, NamespaceFeature namespaces) {
    List<ReplicatedState> states = new ArrayList<>();
    states.add(config.state());
    states.addAll(naming.states());
    states.add(namespaces.state());
    return states;
  }

  /**
   * The registry, with its health probe, beats and health checks running; in a cluster, sharing its
   * ephemeral instances with the other nodes.
   */
  private static NamingFeature naming(
      ServerOptions options,
      ServerThreads threads,
      ReplicatedWrites writes,
      ServerClock clock,
      StartingReplicator replicator,
      Deque<AutoCloseable> started) {
    VertxHealthProbe probe =
        new VertxHealthProbe(
            threads.vertx,
            options.healthCheckTimeout().toMillis(),
            NamingFeature.HEALTH_CHECKS_IN_FLIGHT);
    started.push(probe);
    NamingFeature naming =
        new NamingFeature(
            clock,
            writes,
            threads.pushThread,
            options.pushDelay().toMillis(),
            options.maxConnections(),
            new RestrictedHealthProbe(probe, options.healthCheckTargets()),
            options.maxInstanceMetadataBytes(),
            options.standalone()
                ? Optional.empty()
                : Optional.of(
                    new NamingFeature.Cluster(
                        options.self().peerId(),
                        UUID.randomUUID().toString().substring(0, 8),
                        options.ephemeralOwnerTimeout().toMillis(),
                        membership(options, replicator))),
            threads.scheduler);
    started.push(naming);
    naming.start(threads.scheduler, options.healthCheckInterval().toMillis());
    return naming;
  }

  /** The gRPC port with each feature's handlers, and the watch on silent connections. */
  private static GrpcPort grpcPort(
      ServerOptions options,
      NettyIo io,
      ServerThreads threads,
      ServerClock clock,
      BooleanSupplier serving,
      ConfigFeature config,
      NamingFeature naming,
      AuthService auth,
      ClientFaultLog faults,
      ServerMetrics metrics,
      Deque<AutoCloseable> started) {
    MessageCodec codec = new MessageCodec();
    RequestRouter router = new RequestRouter(codec, clock, metrics);
    if (auth.enabled()) {
      router.guard(new GrpcAccessRules(auth));
    }
    ConnectionRegistry connections =
        new ConnectionRegistry(
            clock, codec, options.maxConnections(), MAX_PENDING_PUSHES_PER_CONNECTION);
    long pushAckMillis = options.pushAckTimeout().toMillis();
    ConfigGrpcHandlers.install(
        config.service(), router, connections, threads.scheduler, pushAckMillis);
    NamingGrpcHandlers.install(
        naming.service(), router, connections, threads.pushThread, pushAckMillis);
    GrpcServer server =
        GrpcServer.start(
            options.grpcTransport(),
            io,
            options.bindAddress(),
            options.grpcPort(),
            threads.eventLoops,
            maxMessageBytes(options),
            options.grpcHandshakeTimeout().toMillis(),
            options.maxGrpcHandshakes(),
            options.maxGrpcHandshakesPerAddress(),
            faults,
            options.tlsCertificate(),
            options.tlsPrivateKey(),
            connections,
            router,
            codec,
            serving,
            clock);
    started.push(server);
    started.push(
        new IdleConnectionEjector(
            connections,
            clock,
            threads.scheduler,
            CONNECTION_SWEEP_MILLIS,
            options.connectionIdleTimeout().toMillis(),
            options.connectionProbeTimeout().toMillis(),
            server::eventLoopLagNanos));
    return new GrpcPort(connections, server);
  }

  /** The membership the registry drops dead nodes' instances by, from the store's view. */
  private static NamingFeature.Membership membership(
      ServerOptions options, StartingReplicator replicator) {
    Set<String> listed = new HashSet<>();
    for (ClusterMember member : options.clusterMembers()) {
      listed.add(member.peerId());
    }
    return new NamingFeature.Membership() {
      @Override
      public boolean isLeader() {
        return replicator.isLeader();
      }

      /** The group's current members (they change at runtime); the cluster list until it runs. */
      @Override
      public Set<String> members() {
        return replicator
            .groupStatus()
            .map(
                status -> {
                  Set<String> members = new HashSet<>();
                  for (GroupStatus.Peer peer : status.peers()) {
                    members.add(peer.id());
                  }
                  return members;
                })
            .orElse(listed);
      }

      @Override
      public Map<String, Long> silentMillis() {
        Map<String, Long> silent = new HashMap<>();
        replicator
            .groupStatus()
            .ifPresent(
                status -> {
                  for (GroupStatus.Peer peer : status.peers()) {
                    if (peer.silentMillis() >= 0) {
                      silent.put(peer.id(), peer.silentMillis());
                    }
                  }
                });
        return silent;
      }
    };
  }

  /**
   * The cluster for its endpoints: the cluster list (or this node alone) with what the store knows
   * of each member.
   */
  private static ClusterView clusterView(ServerOptions options, StartingReplicator replicator) {
    Optional<GroupStatus> status = replicator.groupStatus();
    List<ClusterMember> members;
    if (options.standalone()) {
      members = List.of(new ClusterMember(options.bindAddress(), Math.max(1, options.httpPort())));
    } else if (status.isPresent()) {
      // The group's current members: they change at runtime, so the cluster list may be stale.
      members = new ArrayList<>();
      for (GroupStatus.Peer peer : status.get().peers()) {
        members.add(ClusterMember.ofPeerId(peer.id()));
      }
    } else {
      members = options.clusterMembers();
    }
    List<ClusterView.Member> view = new ArrayList<>();
    for (ClusterMember member : members) {
      GroupStatus.Peer peer = null;
      if (status.isPresent()) {
        String peerId = options.standalone() ? status.get().selfId() : member.peerId();
        for (GroupStatus.Peer candidate : status.get().peers()) {
          if (candidate.id().equals(peerId)) {
            peer = candidate;
          }
        }
      }
      boolean self = options.standalone() || member.equals(options.self());
      view.add(
          new ClusterView.Member(
              member.host(),
              member.port(),
              options.standalone() ? options.raftPort() : options.raftPortOf(member.port()),
              self,
              peer != null && peer.leader(),
              peer == null ? (self ? "STARTING" : "UNKNOWN") : peer.reachability().name()));
    }
    return new ClusterView(status.map(GroupStatus::term).orElse(0L), List.copyOf(view));
  }

  private static String version() {
    String version = SluiceServer.class.getPackage().getImplementationVersion();
    return version != null ? version : "dev";
  }

  private record GrpcPort(ConnectionRegistry connections, GrpcServer server) {}

  /**
   * What the store is started with: a one-peer group in the data directory, or in a cluster a group
   * of every listed node, each on its Raft port (HTTP port − the Raft offset).
   */
  static ReplicationOptions replicationOptions(ServerOptions options) {
    ReplicationOptions.Builder replication =
        ReplicationOptions.builder(options.dataDir().resolve("ratis"))
            // A command carries the content once, plus its metadata.
            .maxCommandBytes(
                (int) Math.min(Integer.MAX_VALUE, options.maxContentBytes() + 64 * 1024))
            .snapshotThresholdEntries(options.snapshotEveryEntries());
    if (options.standalone()) {
      return replication
          .self(
              new ReplicationPeer(
                  ReplicationOptions.DEFAULT_PEER_ID, options.bindAddress(), options.raftPort()))
          .build();
    }
    ClusterMember self = options.self();
    List<ReplicationPeer> peers = new ArrayList<>();
    for (ClusterMember member : options.clusterMembers()) {
      peers.add(
          new ReplicationPeer(member.peerId(), member.host(), options.raftPortOf(member.port())));
    }
    replication
        .self(new ReplicationPeer(self.peerId(), self.host(), options.raftPortOf(self.port())))
        .peers(peers);
    options
        .electionTimeout()
        .ifPresent(timeout -> replication.electionTimeout(timeout, timeout.multipliedBy(2)));
    return replication.build();
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
      ready.get(timeout, unit);
      return true;
    } catch (Exception e) {
      return ready.isDone() && !ready.isCompletedExceptionally();
    }
  }

  /** Why the store failed to start, or null while it is starting or running. */
  public Throwable startupFailure() {
    return replicator.failure();
  }

  public boolean isReady() {
    return replicator.isReady() && (!auth.enabled() || auth.hasKey());
  }

  public ServerOptions options() {
    return options;
  }

  /** The config center's door. */
  public ConfigService config() {
    return config;
  }

  /** The registry's door. */
  public NamingService naming() {
    return naming;
  }

  /** Auth's door. */
  public AuthService auth() {
    return auth;
  }

  /** The namespaces' door. */
  public NamespaceService namespaces() {
    return namespaces;
  }

  public ConnectionRegistry connections() {
    return connections;
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

  /** The I/O transport the gRPC port runs on: epoll or NIO (what {@code --io auto} chose). */
  public IoTransport grpcIo() {
    return grpc.io().transport();
  }

  public String httpAddress() {
    return (options.tls() ? "https://" : "http://") + options.bindAddress() + ":" + httpPort();
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (!options.standalone()) {
      moveClientsAway();
    }
    closeAll(closeInReverse);
  }

  /**
   * In a cluster, asks every connected client to reconnect to another node before this one stops
   * (the official client connects to the next server before it drops this one), so a rolling
   * restart costs clients a reconnect rather than failed requests. Waits until they have gone, at
   * most {@link #CLIENT_MOVE_TIMEOUT_MILLIS}.
   */
  private void moveClientsAway() {
    for (Connection connection : connections.all()) {
      connection.reset("", "");
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLIENT_MOVE_TIMEOUT_MILLIS);
    while (connections.size() > 0 && System.nanoTime() < deadline) {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
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
}
