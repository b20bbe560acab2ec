package io.sluice.server;

import io.sluice.server.naming.health.HealthCheckTargets;
import io.sluice.server.protocol.grpc.GrpcTransport;
import io.sluice.server.protocol.grpc.IoTransport;
import io.sluice.server.replication.ReplicationOptions;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a sluice-server instance listens on, where it keeps its data, and its limits. Immutable;
 * build one with {@link #builder()}.
 *
 * <p>The gRPC port follows Nacos's convention of the HTTP port plus {@value #GRPC_PORT_OFFSET},
 * which is what the official client derives from the address it is given.
 */
public final class ServerOptions {
  public static final String DEFAULT_BIND_ADDRESS = "127.0.0.1";
  public static final int DEFAULT_HTTP_PORT = 8848;
  public static final int GRPC_PORT_OFFSET = 1000;
  public static final Path DEFAULT_DATA_DIR = Path.of("data");
  public static final long DEFAULT_MAX_CONTENT_BYTES = 10L * 1024 * 1024;
  public static final Duration DEFAULT_HISTORY_RETENTION = Duration.ofDays(30);
  public static final int DEFAULT_MAX_CONNECTIONS = 20_000;
  public static final Duration DEFAULT_PUSH_DELAY = Duration.ofMillis(20);
  public static final Duration DEFAULT_PUSH_ACK_TIMEOUT = Duration.ofSeconds(5);
  public static final Duration DEFAULT_CONNECTION_IDLE_TIMEOUT = Duration.ofSeconds(20);
  public static final Duration DEFAULT_CONNECTION_PROBE_TIMEOUT = Duration.ofSeconds(5);
  public static final Duration DEFAULT_HEALTH_CHECK_INTERVAL = Duration.ofSeconds(5);
  public static final Duration DEFAULT_HEALTH_CHECK_TIMEOUT = Duration.ofSeconds(2);
  public static final Duration DEFAULT_TOKEN_TTL = Duration.ofSeconds(18_000);
  public static final int DEFAULT_MAX_HTTP_CONNECTIONS = 20_000;
  public static final int DEFAULT_MAX_LOGINS_PER_MINUTE = 60;
  public static final Duration DEFAULT_HTTP_IDLE_TIMEOUT = Duration.ofSeconds(120);
  public static final Duration DEFAULT_HTTP_HEADER_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_GRPC_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

  /**
   * netty-h2: it costs the server markedly less CPU per call than grpc-java with the official
   * client (docs/performance.md); grpc-java stays selectable with {@code --grpc-transport}.
   */
  public static final GrpcTransport DEFAULT_GRPC_TRANSPORT = GrpcTransport.NETTY_H2;

  /**
   * gRPC sockets handshaking at once: a handshake takes milliseconds, so this is far above what
   * clients need, even all reconnecting after a restart, and bounds the descriptors a flood of
   * silent sockets holds.
   */
  public static final int DEFAULT_MAX_GRPC_HANDSHAKES = 2_048;

  /** Of {@link #DEFAULT_MAX_GRPC_HANDSHAKES}, how many one source address may hold. */
  public static final int DEFAULT_MAX_GRPC_HANDSHAKES_PER_ADDRESS = 256;

  public static final long DEFAULT_MIN_FREE_DISK_BYTES = 64L * 1024 * 1024;

  /** A quarter of the heap for config content by default. */
  public static long defaultMaxConfigBytes() {
    return Runtime.getRuntime().maxMemory() / 4;
  }

  /** An eighth of the heap for the metadata of ephemeral instances by default. */
  public static long defaultMaxInstanceMetadataBytes() {
    return Runtime.getRuntime().maxMemory() / 8;
  }

  /** An eighth of the heap for request bodies being read at once by default. */
  public static long defaultMaxBufferedRequestBytes() {
    return Runtime.getRuntime().maxMemory() / 8;
  }

  /**
   * Whether requests need a login. {@link #AUTO}, the default, turns auth on whenever the server
   * binds beyond loopback; {@link #OFF} is the explicit choice to serve without it even then.
   */
  public enum AuthMode {
    AUTO,
    ON,
    OFF
  }

  /**
   * In a cluster, how long the leader waits for a node that stopped answering before the ephemeral
   * instances it owned are removed everywhere: long enough to ride out a pause or a restart of the
   * node, well inside the 20 s a client tolerates (plus an election when the silent node was the
   * leader).
   */
  public static final Duration DEFAULT_EPHEMERAL_OWNER_TIMEOUT = Duration.ofSeconds(10);

  /** Raft between peers listens on the HTTP port minus this (Nacos's convention: 8848 → 7848). */
  public static final int DEFAULT_RAFT_PORT_OFFSET = 1000;

  private final String bindAddress;
  private final int httpPort;
  private final int grpcPort;
  private final Path dataDir;
  private final long maxContentBytes;
  private final Duration historyRetention;
  private final int maxConnections;
  private final Duration pushDelay;
  private final Duration pushAckTimeout;
  private final Duration connectionIdleTimeout;
  private final Duration connectionProbeTimeout;
  private final Duration healthCheckInterval;
  private final Duration healthCheckTimeout;
  private final List<ClusterMember> clusterMembers;
  private final int raftPortOffset;
  private final Duration electionTimeout;
  private final Duration ephemeralOwnerTimeout;
  private final long snapshotEveryEntries;
  private final AuthMode authMode;
  private final String initialAdminPassword;
  private final Duration tokenTtl;
  private final long maxConfigBytes;
  private final long maxInstanceMetadataBytes;
  private final long maxBufferedRequestBytes;
  private final int maxHttpConnections;
  private final int maxLoginsPerMinute;
  private final Duration httpIdleTimeout;
  private final Duration httpHeaderTimeout;
  private final Duration grpcHandshakeTimeout;
  private final GrpcTransport grpcTransport;
  private final IoTransport ioTransport;
  private final int maxGrpcHandshakes;
  private final int maxGrpcHandshakesPerAddress;
  private final long minFreeDiskBytes;
  private final HealthCheckTargets healthCheckTargets;
  private final Path tlsCertificate;
  private final Path tlsPrivateKey;

  private ServerOptions(Builder builder) {
    this.bindAddress = builder.bindAddress;
    this.httpPort = builder.httpPort;
    this.grpcPort = builder.grpcPort;
    this.dataDir = builder.dataDir;
    this.maxContentBytes = builder.maxContentBytes;
    this.historyRetention = builder.historyRetention;
    this.maxConnections = builder.maxConnections;
    this.pushDelay = builder.pushDelay;
    this.pushAckTimeout = builder.pushAckTimeout;
    this.connectionIdleTimeout = builder.connectionIdleTimeout;
    this.connectionProbeTimeout = builder.connectionProbeTimeout;
    this.healthCheckInterval = builder.healthCheckInterval;
    this.healthCheckTimeout = builder.healthCheckTimeout;
    this.authMode = builder.authMode;
    this.initialAdminPassword = builder.initialAdminPassword;
    this.tokenTtl = builder.tokenTtl;
    this.maxConfigBytes = builder.maxConfigBytes;
    this.maxInstanceMetadataBytes = builder.maxInstanceMetadataBytes;
    this.maxBufferedRequestBytes = builder.maxBufferedRequestBytes;
    this.maxHttpConnections = builder.maxHttpConnections;
    this.maxLoginsPerMinute = builder.maxLoginsPerMinute;
    this.httpIdleTimeout = builder.httpIdleTimeout;
    this.httpHeaderTimeout = builder.httpHeaderTimeout;
    this.grpcHandshakeTimeout = builder.grpcHandshakeTimeout;
    this.grpcTransport = builder.grpcTransport;
    this.ioTransport = builder.ioTransport;
    this.maxGrpcHandshakes = builder.maxGrpcHandshakes;
    this.maxGrpcHandshakesPerAddress =
        Math.min(builder.maxGrpcHandshakesPerAddress, builder.maxGrpcHandshakes);
    this.minFreeDiskBytes = builder.minFreeDiskBytes;
    this.healthCheckTargets = builder.healthCheckTargets;
    this.tlsCertificate = builder.tlsCertificate;
    this.tlsPrivateKey = builder.tlsPrivateKey;
    this.clusterMembers = builder.clusterMembers;
    this.raftPortOffset = builder.raftPortOffset;
    this.electionTimeout = builder.electionTimeout;
    this.ephemeralOwnerTimeout = builder.ephemeralOwnerTimeout;
    this.snapshotEveryEntries = builder.snapshotEveryEntries;
    if (httpPort != 0 && httpPort - raftPortOffset < 1) {
      throw new IllegalArgumentException(
          "the Raft port (HTTP port "
              + httpPort
              + " − offset "
              + raftPortOffset
              + ") must be a valid port");
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  public String bindAddress() {
    return bindAddress;
  }

  /** The HTTP port; 0 asks the operating system for a free one (tests). */
  public int httpPort() {
    return httpPort;
  }

  /**
   * The gRPC port: {@code httpPort + 1000} unless set. When the HTTP port is 0, a gRPC port of 0
   * also asks for a free one (clients that derive it then cannot find it: tests only).
   */
  public int grpcPort() {
    if (grpcPort >= 0) {
      return grpcPort;
    }
    return httpPort == 0 ? 0 : httpPort + GRPC_PORT_OFFSET;
  }

  public Path dataDir() {
    return dataDir;
  }

  /**
   * The port Ratis listens on for peers: HTTP port minus the Raft offset (1000 by default), as
   * Nacos places its Raft port (7848 by default); 0 when the HTTP port is 0.
   */
  public int raftPort() {
    return raftPortOf(httpPort);
  }

  /** The Raft port of a node whose HTTP port is {@code port}. */
  public int raftPortOf(int port) {
    return port == 0 || port <= raftPortOffset ? 0 : port - raftPortOffset;
  }

  /** The HTTP port minus this is a node's Raft port. */
  public int raftPortOffset() {
    return raftPortOffset;
  }

  /**
   * Every node of the cluster, this one included, as the cluster list names them; empty in
   * standalone (the default).
   */
  public List<ClusterMember> clusterMembers() {
    return clusterMembers;
  }

  public boolean standalone() {
    return clusterMembers.isEmpty();
  }

  /**
   * This node in {@link #clusterMembers()}: the member whose host is the bind address and whose
   * port is the HTTP port.
   *
   * @throws IllegalArgumentException when the list does not name this node
   */
  public ClusterMember self() {
    ClusterMember self = new ClusterMember(bindAddress, httpPort);
    if (!clusterMembers.contains(self)) {
      throw new IllegalArgumentException(
          "this node ("
              + self.address()
              + ", from --bind and --port) is not in the cluster list "
              + clusterMembers.stream().map(ClusterMember::address).toList()
              + "; each node finds itself in the list by its bind address and HTTP port");
    }
    return self;
  }

  /**
   * The lower election timeout of the cluster's Raft group (the upper is twice it); empty means the
   * default.
   */
  public Optional<Duration> electionTimeout() {
    return Optional.ofNullable(electionTimeout);
  }

  /** In a cluster, silence after which a node's ephemeral instances are removed everywhere. */
  public Duration ephemeralOwnerTimeout() {
    return ephemeralOwnerTimeout;
  }

  /**
   * How many log entries between snapshots; the log is purged behind each snapshot (keeping as many
   * entries again), so a node that was down for longer catches up from a snapshot.
   */
  public long snapshotEveryEntries() {
    return snapshotEveryEntries;
  }

  /** The largest config content accepted, in UTF-8 bytes. */
  public long maxContentBytes() {
    return maxContentBytes;
  }

  /** How long config history is kept. */
  public Duration historyRetention() {
    return historyRetention;
  }

  /** Client connections beyond this are refused. */
  public int maxConnections() {
    return maxConnections;
  }

  /**
   * The least time between two rounds of naming pushes: a change after a quiet spell goes out at
   * once, changes during the spell after a round are gathered into the next.
   */
  public Duration pushDelay() {
    return pushDelay;
  }

  /** How long a client has to acknowledge a push before it is sent again (see PushCallback). */
  public Duration pushAckTimeout() {
    return pushAckTimeout;
  }

  /** Silence after which a connection is probed with a ClientDetectionRequest (Nacos: 20 s). */
  public Duration connectionIdleTimeout() {
    return connectionIdleTimeout;
  }

  /** How long a probed connection has to answer before it is closed (Nacos: 5 s). */
  public Duration connectionProbeTimeout() {
    return connectionProbeTimeout;
  }

  /** How often the server checks each persistent instance (Nacos: about 5 s). */
  public Duration healthCheckInterval() {
    return healthCheckInterval;
  }

  /** How long one health check of a persistent instance may take before it counts as failed. */
  public Duration healthCheckTimeout() {
    return healthCheckTimeout;
  }

  public AuthMode authMode() {
    return authMode;
  }

  /** Whether requests need a login: on by choice, or (by default) when bound beyond loopback. */
  public boolean authEnabled() {
    return switch (authMode) {
      case ON -> true;
      case OFF -> false;
      case AUTO -> !bindsLoopbackOnly();
    };
  }

  /** True when the bind address is a loopback address (127.0.0.0/8, ::1, localhost). */
  public boolean bindsLoopbackOnly() {
    try {
      return InetAddress.getByName(bindAddress).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /** The admin's password at its creation (first start with auth on); null to generate one. */
  public String initialAdminPassword() {
    return initialAdminPassword;
  }

  /** How long an access token is valid (Nacos: 18000 s). */
  public Duration tokenTtl() {
    return tokenTtl;
  }

  /**
   * The most config content all configs may hold together, counted in characters (a byte each for
   * Latin-1 text in the heap); publishes beyond are refused. Default: a quarter of the heap.
   */
  public long maxConfigBytes() {
    return maxConfigBytes;
  }

  /**
   * The most metadata (keys and values, in characters) all ephemeral instances may hold together;
   * registrations beyond are refused. Default: an eighth of the heap.
   */
  public long maxInstanceMetadataBytes() {
    return maxInstanceMetadataBytes;
  }

  /**
   * The most request-body bytes the HTTP port buffers at once across all requests being read;
   * beyond, a request is refused 503. Default: an eighth of the heap.
   */
  public long maxBufferedRequestBytes() {
    return maxBufferedRequestBytes;
  }

  /** Open HTTP connections beyond this are answered 503 and closed. */
  public int maxHttpConnections() {
    return maxHttpConnections;
  }

  /**
   * Logins each source address (the socket's peer) may make a minute, in bursts of up to half of
   * that; beyond, login answers 429 with the seconds to wait.
   */
  public int maxLoginsPerMinute() {
    return maxLoginsPerMinute;
  }

  /**
   * An HTTP connection silent this long is closed (longer than a held long-poll, 30 s): it bounds
   * how long an idle or trickling client holds a socket.
   */
  public Duration httpIdleTimeout() {
    return httpIdleTimeout;
  }

  /**
   * An HTTP/1.x connection whose request headers are not complete this long after their first byte
   * is closed: a client trickling headers (slowloris) holds a socket no longer than this.
   */
  public Duration httpHeaderTimeout() {
    return httpHeaderTimeout;
  }

  /** A gRPC connection that has not finished its HTTP/2 handshake by then is closed. */
  public Duration grpcHandshakeTimeout() {
    return grpcHandshakeTimeout;
  }

  /**
   * Which HTTP/2 implementation serves the Nacos gRPC port; {@link #DEFAULT_GRPC_TRANSPORT} unless
   * chosen. Raft between cluster members uses grpc-java whatever this says.
   */
  public GrpcTransport grpcTransport() {
    return grpcTransport;
  }

  /**
   * Which of Netty's I/O transports the gRPC port's sockets run on; {@link IoTransport#AUTO}
   * (native epoll where it loads, else NIO) unless chosen.
   */
  public IoTransport ioTransport() {
    return ioTransport;
  }

  /**
   * gRPC sockets that may be handshaking at once (accepted, HTTP/2 preface and settings not yet
   * through); a socket beyond is closed at once.
   */
  public int maxGrpcHandshakes() {
    return maxGrpcHandshakes;
  }

  /**
   * Of {@link #maxGrpcHandshakes()}, how many sockets one source address may hold (never more than
   * that total).
   */
  public int maxGrpcHandshakesPerAddress() {
    return maxGrpcHandshakesPerAddress;
  }

  /**
   * Writes are refused (503, readiness failing with the reason) while the data directory's disk has
   * less free space than this; they resume by themselves when space returns.
   */
  public long minFreeDiskBytes() {
    return minFreeDiskBytes;
  }

  /**
   * Where health checks of persistent instances may go (default: any address and port, no query
   * strings in HTTP check paths); an instance outside is never probed and stays unhealthy.
   */
  public HealthCheckTargets healthCheckTargets() {
    return healthCheckTargets;
  }

  /** Whether the HTTP and gRPC ports speak TLS (a certificate and key were given). */
  public boolean tls() {
    return tlsCertificate != null;
  }

  /** The PEM certificate (chain) both ports present, or null without TLS. */
  public Path tlsCertificate() {
    return tlsCertificate;
  }

  /** The PEM private key (PKCS#8) of {@link #tlsCertificate()}, or null without TLS. */
  public Path tlsPrivateKey() {
    return tlsPrivateKey;
  }

  @Override
  public String toString() {
    return "ServerOptions{bind="
        + bindAddress
        + ", httpPort="
        + httpPort
        + ", grpcPort="
        + grpcPort()
        + ", dataDir="
        + dataDir
        + ", maxContentBytes="
        + maxContentBytes
        + ", historyRetention="
        + historyRetention
        + ", grpcTransport="
        + grpcTransport
        + ", io="
        + ioTransport
        + ", tls="
        + tls()
        + ", auth="
        + (authEnabled() ? "on" : "off")
        + (clusterMembers.isEmpty() ? "" : ", cluster=" + clusterMembers)
        + '}';
  }

  public static final class Builder {
    private String bindAddress = DEFAULT_BIND_ADDRESS;
    private int httpPort = DEFAULT_HTTP_PORT;
    private int grpcPort = -1;
    private Path dataDir = DEFAULT_DATA_DIR;
    private long maxContentBytes = DEFAULT_MAX_CONTENT_BYTES;
    private Duration historyRetention = DEFAULT_HISTORY_RETENTION;
    private int maxConnections = DEFAULT_MAX_CONNECTIONS;
    private Duration pushDelay = DEFAULT_PUSH_DELAY;
    private Duration pushAckTimeout = DEFAULT_PUSH_ACK_TIMEOUT;
    private Duration connectionIdleTimeout = DEFAULT_CONNECTION_IDLE_TIMEOUT;
    private Duration connectionProbeTimeout = DEFAULT_CONNECTION_PROBE_TIMEOUT;
    private Duration healthCheckInterval = DEFAULT_HEALTH_CHECK_INTERVAL;
    private Duration healthCheckTimeout = DEFAULT_HEALTH_CHECK_TIMEOUT;
    private AuthMode authMode = AuthMode.AUTO;
    private String initialAdminPassword;
    private Duration tokenTtl = DEFAULT_TOKEN_TTL;
    private long maxConfigBytes = defaultMaxConfigBytes();
    private long maxInstanceMetadataBytes = defaultMaxInstanceMetadataBytes();
    private long maxBufferedRequestBytes = defaultMaxBufferedRequestBytes();
    private int maxHttpConnections = DEFAULT_MAX_HTTP_CONNECTIONS;
    private int maxLoginsPerMinute = DEFAULT_MAX_LOGINS_PER_MINUTE;
    private Duration httpIdleTimeout = DEFAULT_HTTP_IDLE_TIMEOUT;
    private Duration httpHeaderTimeout = DEFAULT_HTTP_HEADER_TIMEOUT;
    private Duration grpcHandshakeTimeout = DEFAULT_GRPC_HANDSHAKE_TIMEOUT;
    private GrpcTransport grpcTransport = DEFAULT_GRPC_TRANSPORT;
    private IoTransport ioTransport = IoTransport.AUTO;
    private int maxGrpcHandshakes = DEFAULT_MAX_GRPC_HANDSHAKES;
    private int maxGrpcHandshakesPerAddress = DEFAULT_MAX_GRPC_HANDSHAKES_PER_ADDRESS;
    private long minFreeDiskBytes = DEFAULT_MIN_FREE_DISK_BYTES;
    private HealthCheckTargets healthCheckTargets = HealthCheckTargets.ANY;
    private Path tlsCertificate;
    private Path tlsPrivateKey;
    private List<ClusterMember> clusterMembers = List.of();
    private int raftPortOffset = DEFAULT_RAFT_PORT_OFFSET;
    private Duration electionTimeout;
    private Duration ephemeralOwnerTimeout = DEFAULT_EPHEMERAL_OWNER_TIMEOUT;
    private long snapshotEveryEntries = ReplicationOptions.DEFAULT_SNAPSHOT_THRESHOLD_ENTRIES;

    private Builder() {}

    public Builder snapshotEveryEntries(long entries) {
      if (entries < 100 || entries > 100_000_000) {
        throw new IllegalArgumentException(
            "snapshot interval must be between 100 and 100000000 entries, was " + entries);
      }
      this.snapshotEveryEntries = entries;
      return this;
    }

    public Builder ephemeralOwnerTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.toMillis() < 100 || timeout.toMinutes() > 10) {
        throw new IllegalArgumentException(
            "ephemeral owner timeout must be between 100 ms and 10 min, was " + timeout);
      }
      this.ephemeralOwnerTimeout = timeout;
      return this;
    }

    /**
     * Every node of the cluster, this one included (it must be listed by its bind address and HTTP
     * port). A list of one (this node) or none is standalone.
     */
    public Builder clusterMembers(List<ClusterMember> members) {
      Objects.requireNonNull(members, "members");
      this.clusterMembers = members.size() <= 1 ? List.of() : List.copyOf(members);
      return this;
    }

    public Builder raftPortOffset(int offset) {
      if (offset < 1 || offset > 64_000) {
        throw new IllegalArgumentException(
            "Raft port offset must be between 1 and 64000, was " + offset);
      }
      this.raftPortOffset = offset;
      return this;
    }

    /** The lower election timeout of a cluster (the upper is twice it); tests shorten it. */
    public Builder electionTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.toMillis() < 50 || timeout.toSeconds() > 60) {
        throw new IllegalArgumentException(
            "election timeout must be between 50 ms and 60 s, was " + timeout);
      }
      this.electionTimeout = timeout;
      return this;
    }

    /**
     * Serves HTTP and gRPC over TLS with this PEM certificate (chain) and PEM private key.
     *
     * @throws IllegalArgumentException when either file is not readable
     */
    public Builder tls(Path certificate, Path privateKey) {
      for (Path file : new Path[] {certificate, privateKey}) {
        if (file == null || !Files.isReadable(file)) {
          throw new IllegalArgumentException("TLS file " + file + " is not readable");
        }
      }
      this.tlsCertificate = certificate;
      this.tlsPrivateKey = privateKey;
      return this;
    }

    /**
     * Restricts health checks to these CIDRs ({@code 10.0.0.0/8}) and port ranges ({@code
     * 80,8000-8999}); {@code queryAllowed} lets HTTP check paths carry a query string.
     *
     * @throws IllegalArgumentException for a malformed CIDR or range
     */
    public Builder healthCheckTargets(List<String> cidrs, String ports, boolean queryAllowed) {
      this.healthCheckTargets = HealthCheckTargets.parse(cidrs, ports, queryAllowed);
      return this;
    }

    public Builder minFreeDiskBytes(long bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("min free disk bytes must not be negative");
      }
      this.minFreeDiskBytes = bytes;
      return this;
    }

    public Builder maxConfigBytes(long bytes) {
      if (bytes < 1) {
        throw new IllegalArgumentException("max config bytes must be positive, was " + bytes);
      }
      this.maxConfigBytes = bytes;
      return this;
    }

    public Builder maxInstanceMetadataBytes(long bytes) {
      if (bytes < 1) {
        throw new IllegalArgumentException("max instance metadata bytes must be positive");
      }
      this.maxInstanceMetadataBytes = bytes;
      return this;
    }

    public Builder maxBufferedRequestBytes(long bytes) {
      if (bytes < 1024) {
        throw new IllegalArgumentException(
            "max buffered request bytes must be at least 1024, was " + bytes);
      }
      this.maxBufferedRequestBytes = bytes;
      return this;
    }

    public Builder maxHttpConnections(int connections) {
      if (connections < 1) {
        throw new IllegalArgumentException("max HTTP connections must be positive");
      }
      this.maxHttpConnections = connections;
      return this;
    }

    public Builder maxLoginsPerMinute(int logins) {
      if (logins < 2) {
        throw new IllegalArgumentException(
            "max logins per minute must be at least 2, was " + logins);
      }
      this.maxLoginsPerMinute = logins;
      return this;
    }

    public Builder httpIdleTimeout(Duration timeout) {
      this.httpIdleTimeout = positive("HTTP idle timeout", timeout);
      return this;
    }

    public Builder httpHeaderTimeout(Duration timeout) {
      this.httpHeaderTimeout = positive("HTTP header timeout", timeout);
      return this;
    }

    public Builder grpcHandshakeTimeout(Duration timeout) {
      this.grpcHandshakeTimeout = positive("gRPC handshake timeout", timeout);
      return this;
    }

    public Builder grpcTransport(GrpcTransport transport) {
      this.grpcTransport = Objects.requireNonNull(transport, "gRPC transport");
      return this;
    }

    /**
     * The transport as {@code --grpc-transport} names it: {@code grpc-java} or {@code netty-h2}.
     */
    public Builder grpcTransport(String name) {
      return grpcTransport(GrpcTransport.parse(name));
    }

    public Builder ioTransport(IoTransport transport) {
      this.ioTransport = Objects.requireNonNull(transport, "I/O transport");
      return this;
    }

    /** The I/O transport as {@code --io} names it: {@code auto}, {@code epoll} or {@code nio}. */
    public Builder ioTransport(String name) {
      return ioTransport(IoTransport.parse(name));
    }

    public Builder maxGrpcHandshakes(int sockets) {
      if (sockets < 1) {
        throw new IllegalArgumentException("max gRPC handshakes must be positive, was " + sockets);
      }
      this.maxGrpcHandshakes = sockets;
      return this;
    }

    public Builder maxGrpcHandshakesPerAddress(int sockets) {
      if (sockets < 1) {
        throw new IllegalArgumentException(
            "max gRPC handshakes per address must be positive, was " + sockets);
      }
      this.maxGrpcHandshakesPerAddress = sockets;
      return this;
    }

    public Builder authMode(AuthMode authMode) {
      this.authMode = Objects.requireNonNull(authMode, "authMode");
      return this;
    }

    /** The admin's first password; at least 8 characters. */
    public Builder initialAdminPassword(String password) {
      if (password != null && password.length() < 8) {
        throw new IllegalArgumentException("the admin password must have at least 8 characters");
      }
      this.initialAdminPassword = password;
      return this;
    }

    public Builder tokenTtl(Duration ttl) {
      Objects.requireNonNull(ttl, "tokenTtl");
      if (ttl.toSeconds() < 10 || ttl.toDays() > 30) {
        throw new IllegalArgumentException(
            "token ttl must be between 10 s and 30 days, was " + ttl);
      }
      this.tokenTtl = ttl;
      return this;
    }

    public Builder bindAddress(String bindAddress) {
      Objects.requireNonNull(bindAddress, "bindAddress");
      if (bindAddress.isBlank()) {
        throw new IllegalArgumentException("bind address must not be blank");
      }
      this.bindAddress = bindAddress;
      return this;
    }

    public Builder httpPort(int httpPort) {
      // The gRPC port sits 1000 above the HTTP port and must itself be a valid port.
      if (httpPort < 0 || httpPort > 65535 - GRPC_PORT_OFFSET) {
        throw new IllegalArgumentException(
            "HTTP port must be between 0 and " + (65535 - GRPC_PORT_OFFSET) + ", was " + httpPort);
      }
      this.httpPort = httpPort;
      return this;
    }

    /** Overrides the gRPC port (default: HTTP port + 1000). */
    public Builder grpcPort(int grpcPort) {
      if (grpcPort < 0 || grpcPort > 65535) {
        throw new IllegalArgumentException(
            "gRPC port must be between 0 and 65535, was " + grpcPort);
      }
      this.grpcPort = grpcPort;
      return this;
    }

    public Builder dataDir(Path dataDir) {
      this.dataDir = Objects.requireNonNull(dataDir, "dataDir");
      return this;
    }

    public Builder maxContentBytes(long maxContentBytes) {
      if (maxContentBytes < 1 || maxContentBytes > 256L * 1024 * 1024) {
        throw new IllegalArgumentException(
            "content limit must be between 1 byte and 256 MiB, was " + maxContentBytes);
      }
      this.maxContentBytes = maxContentBytes;
      return this;
    }

    public Builder historyRetention(Duration historyRetention) {
      Objects.requireNonNull(historyRetention, "historyRetention");
      if (historyRetention.isNegative() || historyRetention.isZero()) {
        throw new IllegalArgumentException("history retention must be positive");
      }
      this.historyRetention = historyRetention;
      return this;
    }

    public Builder maxConnections(int maxConnections) {
      if (maxConnections < 1) {
        throw new IllegalArgumentException("max connections must be positive");
      }
      this.maxConnections = maxConnections;
      return this;
    }

    public Builder pushDelay(Duration pushDelay) {
      Objects.requireNonNull(pushDelay, "pushDelay");
      if (pushDelay.isNegative() || pushDelay.toMillis() > 10_000) {
        throw new IllegalArgumentException(
            "push delay must be between 0 and 10 s, was " + pushDelay);
      }
      this.pushDelay = pushDelay;
      return this;
    }

    public Builder pushAckTimeout(Duration timeout) {
      this.pushAckTimeout = positive("push ack timeout", timeout);
      return this;
    }

    public Builder connectionIdleTimeout(Duration timeout) {
      this.connectionIdleTimeout = positive("connection idle timeout", timeout);
      return this;
    }

    public Builder connectionProbeTimeout(Duration timeout) {
      this.connectionProbeTimeout = positive("connection probe timeout", timeout);
      return this;
    }

    private static Duration positive(String what, Duration value) {
      Objects.requireNonNull(value, what);
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(what + " must be positive, was " + value);
      }
      return value;
    }

    public Builder healthCheckInterval(Duration interval) {
      Objects.requireNonNull(interval, "interval");
      if (interval.toMillis() < 10 || interval.toMinutes() > 10) {
        throw new IllegalArgumentException(
            "health check interval must be between 10 ms and 10 min, was " + interval);
      }
      this.healthCheckInterval = interval;
      return this;
    }

    public Builder healthCheckTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.toMillis() < 10 || timeout.toSeconds() > 60) {
        throw new IllegalArgumentException(
            "health check timeout must be between 10 ms and 60 s, was " + timeout);
      }
      this.healthCheckTimeout = timeout;
      return this;
    }

    public ServerOptions build() {
      return new ServerOptions(this);
    }
  }
}
