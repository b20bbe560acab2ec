package io.sluice.agent.rules;

import io.sluice.agent.logging.AgentLog;
import java.io.IOException;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Keeps the rules in force equal to the rule documents in the config center. On start it applies
 * the documents cached on disk by the previous run, then, on one thread of its own, reads every
 * watched document and long-polls the listener API, re-reading a document as soon as the server
 * says it changed, so a publish is in force after one round trip.
 *
 * <p>Failure policy: an invalid document is logged once (per content) and the last good rules of
 * that type stay in force; an unreachable server leaves every rule as it is, and the watcher
 * retries with exponential backoff (0.5 s to 30 s), moving through the configured addresses, so a
 * server that stays down sees few requests. While it waits, it knocks on the next address every
 * {@link #PROBE_INTERVAL} (a TCP connect, nothing sent): once the server accepts connections again
 * the watcher retries at once, and pending changes apply within a second of the server answering. A
 * server that answers with an error (e.g. 503 while it starts) is up: the watcher retries it at
 * least once a second. The application never waits for the config center.
 *
 * <p>Threading: all state below is confined to the watcher thread, except {@code closed} and {@code
 * thread}.
 */
public final class RuleWatcher implements AutoCloseable {
  /** How long the server holds a listen request that sees no change. */
  public static final Duration DEFAULT_HOLD = Duration.ofSeconds(30);

  static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

  /** How often a backing-off watcher checks whether the server accepts connections again. */
  static final Duration PROBE_INTERVAL = Duration.ofMillis(250);

  /** The longest wait after a server answered with a 5xx: it is up, and may recover soon. */
  static final Duration MAX_WAIT_AFTER_ANSWER = Duration.ofMillis(500);

  /** Waits between attempts; injected so tests need not sleep. */
  interface Sleeper {
    void sleep(Duration duration) throws InterruptedException;
  }

  private final java.util.function.Supplier<ConfigCenterClient> clientFactory;
  private ConfigCenterClient client; // built on the watcher thread, on its first round
  private final Map<ConfigKey, RuleType> watched;
  private final RuleSink sink;
  private final RuleCache cache;
  private final Backoff backoff;
  private final Sleeper sleeper;
  private final java.util.function.Predicate<ConfigCenterClient> prober;
  private final Duration hold;
  private final AgentLog log;

  // Server-side md5 of each watched document as last read ("" = missing, null = never read).
  private final Map<ConfigKey, String> knownMd5 = new LinkedHashMap<>();
  // md5 of the last invalid content per document, so each bad version is reported once.
  private final Map<ConfigKey, String> reportedInvalid = new LinkedHashMap<>();
  // Documents whose rules are in force from the cache, so a deletion seen at start is real.
  private final java.util.Set<ConfigKey> appliedFromCache = new java.util.HashSet<>();
  private boolean synced;
  private boolean unreachableReported;

  private volatile boolean closed;
  private volatile Thread thread;

  RuleWatcher(
      java.util.function.Supplier<ConfigCenterClient> clientFactory,
      Map<ConfigKey, RuleType> watched,
      RuleSink sink,
      RuleCache cache,
      Backoff backoff,
      Sleeper sleeper,
      java.util.function.Predicate<ConfigCenterClient> prober,
      Duration hold,
      AgentLog log) {
    this.clientFactory = clientFactory;
    this.prober = prober;
    this.watched = Map.copyOf(watched);
    this.sink = sink;
    this.cache = cache;
    this.backoff = backoff;
    this.sleeper = sleeper;
    this.hold = hold;
    this.log = log;
    for (ConfigKey key : watched.keySet()) {
      knownMd5.put(key, null);
    }
  }

  /**
   * A watcher of the Sentinel rule documents of {@code applicationName}.
   *
   * @param servers config center addresses ({@code host:port}), tried in turn
   * @param namespace the namespace (tenant); empty for the default one
   * @param cacheDirectory where the last rules are kept between runs
   * @param credentials what the agent logs in with when the config center has auth on
   */
  public static RuleWatcher forApplication(
      String applicationName,
      List<String> servers,
      ConfigCredentials credentials,
      String namespace,
      List<RuleType> types,
      RuleSink sink,
      java.nio.file.Path cacheDirectory,
      Duration hold,
      AgentLog log) {
    Map<ConfigKey, RuleType> watched = new LinkedHashMap<>();
    for (RuleType type : types) {
      watched.put(new ConfigKey(type.dataId(applicationName), type.group(), namespace), type);
    }
    // Synchronous sends only: a direct executor keeps the client from starting a pool of its own,
    // so the watcher costs its own thread plus the client's selector thread, nothing more. The
    // client is built on the watcher thread: loading java.net.http stays off the application's
    // start-up path.
    return new RuleWatcher(
        () ->
            new ConfigCenterClient(
                HttpClient.newBuilder()
                    .connectTimeout(CALL_TIMEOUT)
                    .executor(Runnable::run)
                    .version(HttpClient.Version.HTTP_1_1)
                    .build(),
                servers,
                CALL_TIMEOUT,
                credentials),
        watched,
        sink,
        new RuleCache(cacheDirectory),
        new Backoff(
            Duration.ofMillis(500),
            Duration.ofSeconds(30),
            () -> ThreadLocalRandom.current().nextDouble()),
        duration -> Thread.sleep(duration.toMillis()),
        client -> client.accepts(PROBE_INTERVAL),
        hold,
        log);
  }

  /**
   * Applies what the previous run cached, on the caller's thread, so the application starts with
   * its last known rules whether or not the config center answers.
   */
  public void applyCached() {
    for (Map.Entry<ConfigKey, RuleType> entry : watched.entrySet()) {
      String content = cache.read(entry.getKey());
      if (content == null) {
        continue;
      }
      try {
        sink.apply(entry.getValue(), content);
        appliedFromCache.add(entry.getKey());
        log.info(
            "applied cached rules " + entry.getKey() + " from " + cache.fileOf(entry.getKey()));
      } catch (InvalidRulesException e) {
        log.warn("ignored invalid cached rules " + entry.getKey() + ": " + e.getMessage());
      }
    }
  }

  /** Watches on the calling thread until {@link #close()} or an interrupt. */
  public void run() {
    thread = Thread.currentThread();
    while (!closed) {
      try {
        pollOnce();
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        log.error("rule watcher failed; retrying", e);
        sleepQuietly(backoff.next());
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    Thread t = thread;
    if (t != null) {
      t.interrupt();
    }
  }

  /**
   * One round: reads every document if not yet in sync, else long-polls and re-reads the changed
   * ones. A failed call fails over to the next server and sleeps the backoff.
   */
  void pollOnce() throws InterruptedException {
    if (client == null) {
      client = clientFactory.get();
    }
    try {
      if (!synced) {
        for (ConfigKey key : watched.keySet()) {
          refresh(key);
        }
        synced = true;
      } else {
        List<ConfigKey> changed = client.listen(knownMd5WithMissingAsEmpty(), hold);
        for (ConfigKey key : changed) {
          if (watched.containsKey(key)) {
            refresh(key);
          }
        }
      }
      if (unreachableReported) {
        log.info("config center " + client.currentServer() + " answers again");
        unreachableReported = false;
      }
      backoff.reset();
    } catch (IOException e) {
      if (!unreachableReported) {
        log.warn(
            "config center "
                + client.currentServer()
                + (e instanceof ConfigCenterClient.AccessDeniedException
                    ? " refuses the agent ("
                    : e instanceof ConfigCenterClient.ServerAnsweredException
                        ? " failing ("
                        : " unreachable (")
                + e
                + "); rules in force stay, retrying with backoff");
        unreachableReported = true;
      }
      synced = false;
      Duration wait = backoff.next();
      if (e instanceof ConfigCenterClient.AccessDeniedException) {
        // Another address of the same cluster would refuse the same credentials.
        sleeper.sleep(wait);
      } else if (e instanceof ConfigCenterClient.ServerAnsweredException) {
        // Up but failing (e.g. still starting): retry soon, no more than twice a second.
        sleeper.sleep(wait.compareTo(MAX_WAIT_AFTER_ANSWER) > 0 ? MAX_WAIT_AFTER_ANSWER : wait);
      } else {
        client.failOver();
        waitForServer(wait);
      }
    }
  }

  /**
   * Waits up to {@code wait}, cut short when the server to try next accepts a TCP connection again,
   * checked every {@link #PROBE_INTERVAL}.
   */
  private void waitForServer(Duration wait) throws InterruptedException {
    long remaining = wait.toNanos();
    long step = PROBE_INTERVAL.toNanos();
    while (remaining > 0) {
      long nap = Math.min(remaining, step);
      sleeper.sleep(Duration.ofNanos(nap));
      remaining -= nap;
      if (remaining > 0 && prober.test(client)) {
        log.info(
            "config center "
                + client.currentServer()
                + " accepts connections again; retrying now instead of in "
                + Duration.ofNanos(remaining).toMillis()
                + " ms");
        return;
      }
    }
  }

  private void refresh(ConfigKey key) throws IOException, InterruptedException {
    ConfigDocument document = client.get(key);
    String previous = knownMd5.get(key);
    if (document.md5().equals(previous)) {
      return;
    }
    knownMd5.put(key, document.md5());
    boolean fromCache = appliedFromCache.remove(key);
    if (!document.exists() && (previous == null || previous.isEmpty()) && !fromCache) {
      // No rules ever came from this document (none read, none cached): nothing to remove.
      log.debug("no document " + key);
      return;
    }
    RuleType type = watched.get(key);
    try {
      sink.apply(type, document.content());
      reportedInvalid.remove(key);
      log.info(
          (document.exists() ? "applied rules " : "removed rules (document deleted) ")
              + key
              + " md5="
              + document.md5());
    } catch (InvalidRulesException e) {
      // Remember the md5 anyway: the listener compares against it, and must not wake us again
      // for the same bad content. The last good rules stay in force.
      if (!document.md5().equals(reportedInvalid.get(key))) {
        reportedInvalid.put(key, document.md5());
        log.warn("invalid rules in " + key + ", keeping the previous ones: " + e.getMessage());
      }
      return;
    }
    try {
      cache.write(key, document.content());
    } catch (IOException e) {
      log.warn("cannot cache rules " + key + ": " + e);
    }
  }

  private Map<ConfigKey, String> knownMd5WithMissingAsEmpty() {
    Map<ConfigKey, String> md5s = new LinkedHashMap<>();
    knownMd5.forEach((key, md5) -> md5s.put(key, md5 == null ? "" : md5));
    return md5s;
  }

  private void sleepQuietly(Duration duration) {
    try {
      sleeper.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
