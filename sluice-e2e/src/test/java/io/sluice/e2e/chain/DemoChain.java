package io.sluice.e2e.chain;

import io.sluice.e2e.NetworkNamespace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The demo chain of {@code sluice-examples} running for a test or a benchmark: a sluice-server and
 * gateway → a → b → c, each in its own JVM, a base instance of each plus the lane instances asked
 * for (a gray b by default), with or without the agent. On a generation with the Dubbo paths
 * ({@link SpringGeneration#hasDubbo}), b and c are Dubbo providers too, each on a port of its own,
 * registered in the same server (group {@link #DUBBO_GROUP}).
 *
 * <p>Where: on this JVM's loopback; on a generation with the Dubbo paths, in a {@link
 * NetworkNamespace} the chain makes for itself (which needs root), since Dubbo will not register a
 * loopback address: it registers and calls the namespace's. There every process listens on every
 * address of the namespace: they reach one another on its loopback (Spring Cloud registers {@code
 * 127.0.0.1}), this JVM reaches them at {@link #host()}, the namespace's address.
 *
 * <p>{@link Builder#start} returns once every instance is registered (a Dubbo provider at both of
 * Dubbo's levels too) and the gateway answers a path through every service, over every protocol.
 * Documents (rules, lanes) are published through the server's HTTP API as an operator would. Single
 * instances can be stopped, killed and started again (failover). Every process is ended by {@link
 * #close}, and by a shutdown hook if the JVM exits first (a failing test, an interrupted build).
 *
 * <p>Starting five Spring Boot JVMs costs a minute or more on a shared 2-core machine, so tests
 * share one chain: across the methods of a class ({@code @TestInstance(PER_CLASS)}), and across
 * classes through {@link #shared}, which keeps one chain running for as long as the classes asking
 * for it ask for the same one (e2e runs its classes in name order, two at a time, but at most one
 * holding {@link #LOCK}: name chain tests {@code Boot35...IT} to group them by generation).
 *
 * <p>Concurrency: one caller drives a chain at a time (a test class, a benchmark); instances guard
 * their own process, and the shutdown hook, the only other thread, only kills.
 *
 * <pre>{@code
 * DemoChain chain = DemoChain.builder().generation(SpringGeneration.SPRING_BOOT_4_0).start();
 * chain.publish(DemoChain.SLUICE_GROUP, "lanes", "...");
 * chain.get("/a/httpTest", "x-sluice-lane", "gray").body(); // gateway > a[base] > b[gray] > c[base]
 * chain.stop("b", "gray");
 * }</pre>
 */
public final class DemoChain implements AutoCloseable {
  /** The applications, from the entry to the last hop. */
  public static final List<String> APPS = List.of("gateway", "a", "b", "c");

  public static final String BASE = "base";

  /** Sentinel's group for rules: dataIds {@code {app}-flow-rules}, {@code {app}-degrade-rules}. */
  public static final String SENTINEL_GROUP = "SENTINEL_GROUP";

  /** Sluice's own documents, such as {@code lanes}. */
  public static final String SLUICE_GROUP = "SLUICE";

  /** The registry group of the examples' Dubbo registrations ({@code dubbo.registry.group}). */
  public static final String DUBBO_GROUP = "dubbo";

  /** The Dubbo interface each Dubbo provider of the chain exports. */
  public static final Map<String, String> DUBBO_SERVICES =
      Map.of("b", "io.sluice.examples.api.BService", "c", "io.sluice.examples.api.CService");

  /** The paths through the chain: over HTTP, and where the build has them, over Dubbo. */
  private static final List<String> HTTP_PATHS = List.of("/a/httpTest");

  private static final List<String> DUBBO_PATHS = List.of("/a/dubboTest", "/a/mixedTest");

  /** What every path through the chain looks like, whatever the lanes. */
  public static final Pattern PATH =
      Pattern.compile("gateway > a\\[[\\w-]+] > b\\[[\\w-]+] > c\\[[\\w-]+]");

  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);

  /**
   * The JUnit resource lock ({@code @ResourceLock(DemoChain.LOCK)}) every test class holds that
   * runs a chain: the e2e classes run two at a time, and at most one of them drives a chain (and
   * its {@link #shared} one) at once.
   */
  public static final String LOCK = "io.sluice.e2e.chain.DemoChain";

  private static DemoChain shared;

  private final Spec spec;
  private final Path workDir;
  private final NetworkNamespace namespace;
  private final ChainServer server;
  private final List<ChainInstance> instances = new ArrayList<>();
  private final Set<List<String>> published = new LinkedHashSet<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final Thread cleanup;
  private boolean closed;

  private DemoChain(Spec spec, Path workDir, NetworkNamespace namespace, ChainServer server) {
    this.spec = spec;
    this.workDir = workDir;
    this.namespace = namespace;
    this.server = server;
    this.cleanup = new Thread(this::killEverything, "demo-chain-cleanup");
    Runtime.getRuntime().addShutdownHook(cleanup);
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * The chain {@code builder} describes, shared with the callers before that asked for the same:
   * started now if the running one differs (which is then closed), else {@link #reset} and
   * returned. Do not close it: the next caller does, or the shutdown hook at the end of the run.
   */
  public static synchronized DemoChain shared(Builder builder) throws Exception {
    Spec spec = builder.spec();
    if (shared != null && !shared.closed && shared.spec.equals(spec)) {
      shared.reset();
      return shared;
    }
    if (shared != null) {
      shared.close();
      shared = null;
    }
    shared = builder.start();
    return shared;
  }

  /** Closes the shared chain, if any: for a test class that needs the machine to itself. */
  public static synchronized void closeShared() throws InterruptedException {
    if (shared != null) {
      shared.close();
      shared = null;
    }
  }

  /** Every instance, in the order they were declared. */
  public List<ChainInstance> instances() {
    return List.copyOf(instances);
  }

  /** The instance of {@code app} in {@code lane} ({@link #BASE} for the base one). */
  public ChainInstance instance(String app, String lane) {
    return instances.stream()
        .filter(i -> i.app().equals(app) && i.lane().equals(lane))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no instance " + app + "[" + lane + "]"));
  }

  public SpringGeneration generation() {
    return spec.generation();
  }

  /** Whether the applications run under the agent. */
  public boolean hasAgent() {
    return spec.agentJar() != null;
  }

  /**
   * {@code 127.0.0.1:port} of sluice-server's HTTP API (gRPC on port + 1000) as the applications
   * reach it: on the namespace's loopback when the chain runs in one.
   */
  public String serverAddress() {
    return server.address();
  }

  /**
   * Where this JVM reaches the chain's processes: {@code 127.0.0.1}, or the address of the chain's
   * network namespace.
   */
  public String host() {
    return namespace == null ? "127.0.0.1" : namespace.address();
  }

  /** The chain's network namespace, if it runs in one. */
  public Optional<NetworkNamespace> namespace() {
    return Optional.ofNullable(namespace);
  }

  /** The gateway's address for {@code path}, e.g. {@code /a/httpTest}. */
  public URI gateway(String path) {
    return uri(instance("gateway", BASE), path);
  }

  /**
   * {@code instance}'s address for {@code path}, as this JVM reaches it (not through the gateway).
   */
  public URI uri(ChainInstance instance, String path) {
    return URI.create("http://" + host() + ":" + instance.port() + path);
  }

  /** GET {@code path} through the gateway with header name/value pairs. */
  public HttpResponse<String> get(String path, String... headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(gateway(path)).timeout(Duration.ofSeconds(30));
    for (int i = 0; i + 1 < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Publishes a document into the config center (public namespace). */
  public void publish(String group, String dataId, String content)
      throws IOException, InterruptedException {
    server.publish(group, dataId, content);
    synchronized (published) {
      published.add(List.of(group, dataId));
    }
  }

  /** Deletes a document from the config center. */
  public void remove(String group, String dataId) throws IOException, InterruptedException {
    server.remove(group, dataId);
    synchronized (published) {
      published.remove(List.of(group, dataId));
    }
  }

  /** The instances of {@code service} as the registry lists them now. */
  public List<RegisteredInstance> registered(String service)
      throws IOException, InterruptedException {
    return server.instances(service, "DEFAULT_GROUP");
  }

  /**
   * The instances of {@code service} in registry group {@code group}, e.g. a Dubbo provider's
   * application-level ({@code b}) or interface-level ({@code providers:io.sluice.examples.api.
   * BService::}) registration in {@link #DUBBO_GROUP}.
   */
  public List<RegisteredInstance> registered(String service, String group)
      throws IOException, InterruptedException {
    return server.instances(service, group);
  }

  /** Stops one instance gracefully and waits until the registry has dropped it. */
  public void stop(String app, String lane) throws Exception {
    ChainInstance instance = instance(app, lane);
    instance.stop();
    awaitDeregistered(instance);
  }

  /** Kills one instance (SIGKILL) and waits until the registry has dropped it. */
  public void kill(String app, String lane) throws Exception {
    ChainInstance instance = instance(app, lane);
    instance.kill();
    awaitDeregistered(instance);
  }

  /** Starts a stopped instance again and waits until it is registered and the chain answers. */
  public void start(String app, String lane) throws Exception {
    ChainInstance instance = instance(app, lane);
    instance.start();
    awaitReady(List.of(instance));
  }

  /** Stops sluice-server (the applications keep running and retry); {@link #startServer} again. */
  public void stopServer() throws InterruptedException {
    server.stop();
  }

  /** Starts sluice-server again on the same port and data. */
  public void startServer() throws IOException, InterruptedException {
    server.start();
  }

  /**
   * Puts the chain back as it started: the server running, every instance running, every document
   * published through this object removed; returns when the chain answers again.
   */
  public void reset() throws Exception {
    server.start();
    List<List<String>> documents;
    synchronized (published) {
      documents = new ArrayList<>(published);
    }
    for (List<String> document : documents) {
      remove(document.get(0), document.get(1));
    }
    List<ChainInstance> restarted = new ArrayList<>();
    for (ChainInstance instance : instances) {
      if (!instance.isRunning()) {
        instance.start();
        restarted.add(instance);
      }
    }
    awaitReady(restarted);
  }

  /** Ends every process and the server, the applications first. */
  @Override
  public synchronized void close() throws InterruptedException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      // All at once: each takes a few seconds to shut down.
      instances.forEach(ChainInstance::signalStop);
      for (ChainInstance instance : instances) {
        instance.stop();
      }
    } finally {
      try {
        server.close();
      } finally {
        if (namespace != null) {
          namespace.close();
        }
        try {
          Runtime.getRuntime().removeShutdownHook(cleanup);
        } catch (IllegalStateException shuttingDown) {
          // The hook is running or about to.
        }
      }
    }
  }

  private void killEverything() {
    for (ChainInstance instance : instances) {
      try {
        instance.kill();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    try {
      server.kill();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (namespace != null) {
      namespace.close();
    }
  }

  private void startAll() throws Exception {
    for (String app : APPS) {
      instances.add(newInstance(app, BASE));
    }
    for (Map.Entry<String, List<String>> lane : spec.lanes().entrySet()) {
      for (String app : lane.getValue()) {
        instances.add(newInstance(app, lane.getKey()));
      }
    }
    for (ChainInstance instance : instances) {
      instance.start();
    }
    awaitReady(instances);
  }

  private ChainInstance newInstance(String app, String lane) throws IOException {
    Path dir = workDir.resolve(app + "-" + lane);
    Files.createDirectories(dir);
    List<String> command = new ArrayList<>();
    if (namespace != null) {
      // ip netns exec execs what follows: the instance's process is its JVM.
      command.addAll(namespace.commandPrefix());
    }
    command.addAll(spec.commandPrefix());
    command.add(spec.javaHome().resolve("bin/java").toString());
    command.addAll(spec.jvmOptions());
    if (spec.agentJar() != null) {
      StringBuilder options =
          new StringBuilder("server.addr=")
              .append(server.address())
              .append(",log.dir=")
              .append(dir.toAbsolutePath())
              .append(",cache.dir=")
              .append(dir.resolve("rule-cache").toAbsolutePath());
      spec.agentOptions().forEach((k, v) -> options.append(',').append(k).append('=').append(v));
      command.add("-javaagent:" + spec.agentJar().toAbsolutePath() + "=" + options);
    }
    if (!lane.equals(BASE)) {
      // The setting the agent reads for the instance's lane; the application labels itself by it.
      command.add("-Dsluice.lane=" + lane);
    }

    // nacos-client writes its logs and its instance cache under the home directory otherwise.
    command.add("-DJM.LOG.PATH=" + dir.resolve("nacos-logs").toAbsolutePath());
    command.add("-DJM.SNAPSHOT.PATH=" + dir.toAbsolutePath());
    // And Dubbo its file caches (registry, metadata, service-name mapping), in ~/.dubbo, named by
    // application and registry address only and each held under a file lock: b and gray b, and
    // one application in two chains run at once (sluice-bench's copies), raced for the same files,
    // the losers running with the cache disabled (which instances, a race at start), and every run
    // left its files behind. Each instance gets a home of its own.
    command.add("-Duser.home=" + dir.toAbsolutePath());
    command.add("-jar");
    command.add(spec.generation().jar(spec.examplesDir(), app).toAbsolutePath().toString());
    command.add("--spring.cloud.nacos.discovery.server-addr=" + server.address());
    boolean dubbo = spec.generation().hasDubbo();
    if (dubbo) {
      command.add("--dubbo.registry.address=nacos://" + server.address());
    }
    command.add("--spring.main.banner-mode=off");
    if (namespace != null) {
      // The examples listen on 127.0.0.1 only; in the namespace this JVM reaches them at its
      // address.
      command.add("--server.address=0.0.0.0");
    }
    command.addAll(spec.appArguments());
    // A Dubbo provider must be given its port: one of the namespace's own, which nothing else in
    // the namespace is given or binds (the applications' HTTP ports are the kernel's choice).
    int dubboPort = dubbo && DUBBO_SERVICES.containsKey(app) ? namespace.nextPort() : 0;
    return new ChainInstance(app, lane, command, dir.resolve("output.txt"), dubboPort);
  }

  /**
   * Waits until {@code started} are registered (a Dubbo provider at Dubbo's application and
   * interface levels too), then until the gateway answers a full path on every path of the build.
   */
  private void awaitReady(List<ChainInstance> started) throws Exception {
    long deadline = System.nanoTime() + spec.startTimeout().toNanos();
    for (ChainInstance instance : started) {
      instance.awaitPort(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    }
    for (ChainInstance instance : started) {
      while (!isRegistered(instance)) {
        instances.forEach(ChainInstance::checkAlive);
        checkDeadline(deadline, instance + " was not registered");
        Thread.sleep(250);
      }
    }
    List<String> paths = new ArrayList<>(HTTP_PATHS);
    if (spec.generation().hasDubbo()) {
      paths.addAll(DUBBO_PATHS);
    }
    for (String path : paths) {
      int answeredInARow = 0;
      String last = "(nothing)";
      while (answeredInARow < 3) {
        instances.forEach(ChainInstance::checkAlive);
        checkDeadline(
            deadline, "the gateway did not answer a full path on " + path + "; last: " + last);
        try {
          HttpResponse<String> response = get(path);
          last = response.statusCode() + " " + response.body();
          boolean full = response.statusCode() == 200 && PATH.matcher(response.body()).matches();
          answeredInARow = full ? answeredInARow + 1 : 0;
        } catch (IOException notYet) {
          last = notYet.toString();
          answeredInARow = 0;
        }
        if (answeredInARow < 3) {
          Thread.sleep(250);
        }
      }
    }
  }

  private void awaitDeregistered(ChainInstance instance) throws Exception {
    long deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
    while (isListed(instance)) {
      checkDeadline(deadline, instance + " is still registered after it stopped");
      Thread.sleep(100);
    }
  }

  /**
   * Whether the registry lists it healthy (a Dubbo provider at both of Dubbo's levels too); false
   * while the registry does not answer in time.
   */
  private boolean isRegistered(ChainInstance instance) throws InterruptedException {
    try {
      if (!listsHealthy(instance.app(), "DEFAULT_GROUP", instance.port())) {
        return false;
      }
      return instance.dubboPort() == 0
          || (listsHealthy(instance.app(), DUBBO_GROUP, instance.dubboPort())
              && listsHealthy(
                  "providers:" + DUBBO_SERVICES.get(instance.app()) + "::",
                  DUBBO_GROUP,
                  instance.dubboPort()));
    } catch (IOException busy) {
      return false;
    }
  }

  private boolean listsHealthy(String service, String group, int port)
      throws IOException, InterruptedException {
    return server.instances(service, group).stream().anyMatch(r -> r.port() == port && r.healthy());
  }

  /**
   * Whether the registry lists it (a Dubbo provider at either of Dubbo's levels too); true while
   * the registry does not answer in time.
   */
  private boolean isListed(ChainInstance instance) throws InterruptedException {
    try {
      if (server.instances(instance.app(), "DEFAULT_GROUP").stream()
          .anyMatch(r -> r.port() == instance.port())) {
        return true;
      }
      return instance.dubboPort() != 0
          && (server.instances(instance.app(), DUBBO_GROUP).stream()
                  .anyMatch(r -> r.port() == instance.dubboPort())
              || server
                  .instances("providers:" + DUBBO_SERVICES.get(instance.app()) + "::", DUBBO_GROUP)
                  .stream()
                  .anyMatch(r -> r.port() == instance.dubboPort()));
    } catch (IOException busy) {
      return true;
    }
  }

  private void checkDeadline(long deadline, String what) {
    if (System.nanoTime() > deadline) {
      StringBuilder message =
          new StringBuilder(what).append(" within ").append(spec.startTimeout()).append('.');
      for (ChainInstance instance : instances) {
        message
            .append("\n\n--- ")
            .append(instance)
            .append(instance.isRunning() ? " (running)" : " (not running)")
            .append(":\n")
            .append(ChainInstance.tail(instance.output()));
      }
      throw new IllegalStateException(message.toString());
    }
  }

  /** What a chain is made of; two equal specs describe interchangeable chains. */
  record Spec(
      SpringGeneration generation,
      Path examplesDir,
      Path javaHome,
      Path agentJar,
      Map<String, String> agentOptions,
      List<String> jvmOptions,
      List<String> appArguments,
      List<String> commandPrefix,
      Map<String, List<String>> lanes,
      Path workDir,
      Duration startTimeout) {}

  /**
   * How to start a chain. Defaults: Spring Boot 3.5, under the agent jar named by the system
   * property {@code sluice.e2e.agentJar}, on this JVM, a gray b, small heaps.
   */
  public static final class Builder {
    private SpringGeneration generation = SpringGeneration.SPRING_BOOT_3_5;
    private Path examplesDir = pathProperty("sluice.e2e.examplesDir", "../sluice-examples");
    private Path javaHome = Path.of(System.getProperty("java.home"));
    private Path agentJar = pathProperty("sluice.e2e.agentJar", null);
    private final Map<String, String> agentOptions = new LinkedHashMap<>();
    private List<String> jvmOptions = DEFAULT_JVM_OPTIONS;
    private final List<String> appArguments = new ArrayList<>();
    private List<String> commandPrefix = List.of();
    private final Map<String, List<String>> lanes =
        new LinkedHashMap<>(Map.of("gray", List.of("b")));
    private Path workDir = pathProperty("sluice.e2e.workDir", "target/e2e").resolve("chain");
    private Duration startTimeout = Duration.ofMinutes(5);

    /**
     * Small heaps and the client compiler only: the applications start much faster on two busy
     * cores, and the tests measure no speed. Benchmarks pass their own.
     */
    public static final List<String> DEFAULT_JVM_OPTIONS =
        List.of("-Xms32m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    private Builder() {}

    public Builder generation(SpringGeneration generation) {
      this.generation = Objects.requireNonNull(generation);
      return this;
    }

    /** The {@code sluice-examples} directory whose jars are run. */
    public Builder examplesDir(Path examplesDir) {
      this.examplesDir = examplesDir;
      return this;
    }

    /** The JDK the applications run on (default: this JVM's). */
    public Builder javaHome(Path javaHome) {
      this.javaHome = javaHome;
      return this;
    }

    public Builder agent(Path agentJar) {
      this.agentJar = Objects.requireNonNull(agentJar);
      return this;
    }

    public Builder withoutAgent() {
      this.agentJar = null;
      return this;
    }

    /** An agent option beside the server address, log and cache directories it always gets. */
    public Builder agentOption(String key, String value) {
      agentOptions.put(key, value);
      return this;
    }

    public Builder jvmOptions(List<String> jvmOptions) {
      this.jvmOptions = List.copyOf(jvmOptions);
      return this;
    }

    /** A Spring argument for every application, e.g. {@code --logging.level.root=warn}. */
    public Builder appArgument(String argument) {
      appArguments.add(argument);
      return this;
    }

    /** Words put before {@code java}, e.g. {@code taskset -c 1}. */
    public Builder commandPrefix(List<String> commandPrefix) {
      this.commandPrefix = List.copyOf(commandPrefix);
      return this;
    }

    /**
     * The lane instances beside the base ones: {@code lane("gray", "b", "c")} runs a gray b and a
     * gray c; {@code lane("gray")} none. Default: a gray b.
     */
    public Builder lane(String lane, String... apps) {
      for (String app : apps) {
        if (!APPS.contains(app)) {
          throw new IllegalArgumentException("no application " + app + " in " + APPS);
        }
      }
      if (lane.equals(BASE) || !lane.matches("[\\w-]+")) {
        throw new IllegalArgumentException("not a lane name: " + lane);
      }
      if (apps.length == 0) {
        lanes.remove(lane);
      } else {
        lanes.put(lane, List.of(apps));
      }
      return this;
    }

    /** Where the applications' output, logs and the server's data go (wiped at start). */
    public Builder workDir(Path workDir) {
      this.workDir = workDir;
      return this;
    }

    public Builder startTimeout(Duration startTimeout) {
      this.startTimeout = startTimeout;
      return this;
    }

    Spec spec() {
      return new Spec(
          generation,
          examplesDir.toAbsolutePath().normalize(),
          javaHome,
          agentJar,
          Map.copyOf(agentOptions),
          jvmOptions,
          List.copyOf(appArguments),
          commandPrefix,
          Map.copyOf(lanes),
          workDir.toAbsolutePath().normalize(),
          startTimeout);
    }

    /** Starts the chain and returns once it answers through the gateway. */
    public DemoChain start() throws Exception {
      Spec spec = spec();
      for (String app : APPS) {
        Path jar = spec.generation().jar(spec.examplesDir(), app);
        if (!Files.isRegularFile(jar)) {
          throw new IllegalStateException(
              "no " + jar + ": build sluice-examples first (mvn -pl sluice-examples -amd package)");
        }
      }
      if (spec.agentJar() != null && !Files.isRegularFile(spec.agentJar())) {
        throw new IllegalStateException("no agent jar at " + spec.agentJar());
      }
      Path dir = spec.workDir().resolve(spec.generation().name().toLowerCase());
      deleteRecursively(dir);
      Files.createDirectories(dir);
      // Dubbo registers an interface's address, never a loopback one: give it a namespace's.
      NetworkNamespace namespace = spec.generation().hasDubbo() ? NetworkNamespace.create() : null;
      ChainServer server;
      try {
        server = ChainServer.start(dir.resolve("server-data"), namespace);
      } catch (Exception | Error e) {
        if (namespace != null) {
          namespace.close();
        }
        throw e;
      }
      DemoChain chain = new DemoChain(spec, dir, namespace, server);
      try {
        chain.startAll();
      } catch (Exception | Error e) {
        chain.close();
        throw e;
      }
      return chain;
    }

    private static Path pathProperty(String name, String fallback) {
      String value = System.getProperty(name, fallback);
      return value == null ? null : Path.of(value);
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths
          .sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.delete(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    }
  }
}
