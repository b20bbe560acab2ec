package io.sluice.server.cluster.http;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.protocol.http.HttpParams;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.PemTrustOptions;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Asks the cluster's other members over their HTTP ports on behalf of a caller, for what each node
 * holds alone: the agents' traffic reported to it, the clients connected to it (subscribers,
 * listeners, connection counts). The console's answers merge what the members say with this node's
 * own, and name every member that did not answer rather than leave its share silently out.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>Members are the cluster's current membership ({@link ClusterView}), this node excluded; a
 *       standalone server has none and never makes a call.
 *   <li>Each call carries the caller's access token, so with auth on every member checks the same
 *       credentials the serving node checked (the token key is replicated, so a token is good on
 *       every node); no call is made with any identity of the server's own.
 *   <li>A call is bounded in time ({@value #DEFAULT_TIMEOUT_MILLIS} ms by default to connect, and
 *       as long to answer: a member's first TLS handshake on a loaded machine takes a second) and
 *       in size (an answer whose {@code Content-Length} passes {@value #MAX_ANSWER_BYTES} bytes is
 *       refused; members' answers carry one); calls waiting for one of the {@code 4} connections to
 *       a member are at most {@value #MAX_WAITING_CALLS}; a member that could not be reached, or
 *       did not answer in time, is not asked again for {@value #RETRY_AFTER_MILLIS} ms (answered at
 *       once as missing), so a node down or cut off costs the console's once-a-second polls
 *       nothing.
 *   <li>With TLS on, members are called over HTTPS, trusting this node's own certificate chain
 *       (members share a certificate or a CA in its chain) and checking the member's address
 *       against its certificate.
 * </ul>
 *
 * <p>Concurrency: any thread may call; answers arrive on Vert.x event loops and are read (the
 * caller's {@link AnswerReader}) on {@link #worker()}, where callers merge them too.
 */
public final class MemberCalls {
  public static final long DEFAULT_TIMEOUT_MILLIS = 2_000;
  static final long RETRY_AFTER_MILLIS = 5_000;
  static final int MAX_ANSWER_BYTES = 32 * 1024 * 1024;
  static final int MAX_WAITING_CALLS = 256;
  private static final DateTimeFormatter CLOCK =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);

  private final Supplier<ClusterView> view;
  private final Vertx vertx;
  private final Path trustedCertificate;
  private final ServerClock clock;
  private final Executor worker;
  private final long timeoutMillis;
  private final Map<String, Unreachable> unreachable = new ConcurrentHashMap<>();
  private volatile HttpClient client;

  /** Longest part of a reader's complaint quoted in a missing member's reason. */
  private static final int MAX_REASON_DETAIL = 120;

  /**
   * Reads a member's answer (the body of its 200) into what the caller merges; throws (anything)
   * when the body is not what was asked, and the member is then named missing with the reason.
   */
  @FunctionalInterface
  public interface AnswerReader<T> {
    T read(String body) throws Exception;
  }

  /** What one member answered, read. */
  public record Answer<T>(String address, T value) {}

  /** A member whose share is not in an answer, and why. */
  public record Missing(String address, String reason) {}

  /** Every other member's answer, or its absence. */
  public record Gathered<T>(List<Answer<T>> answers, List<Missing> missing) {}

  private record Unreachable(long untilNanos, long atMillis, String reason) {}

  /**
   * @param trustedCertificate this node's PEM certificate chain when it serves TLS (members are
   *     then called over HTTPS trusting it), or null
   */
  public MemberCalls(
      Supplier<ClusterView> view, Vertx vertx, Path trustedCertificate, ServerClock clock) {
    this(view, vertx, trustedCertificate, clock, DEFAULT_TIMEOUT_MILLIS);
  }

  /**
   * @param timeoutMillis how long a member has to accept a call, and then to answer it
   */
  public MemberCalls(
      Supplier<ClusterView> view,
      Vertx vertx,
      Path trustedCertificate,
      ServerClock clock,
      long timeoutMillis) {
    this.view = view;
    this.timeoutMillis = timeoutMillis;
    this.vertx = vertx;
    this.trustedCertificate = trustedCertificate;
    this.clock = clock;
    this.worker =
        command ->
            vertx.executeBlocking(
                () -> {
                  command.run();
                  return null;
                },
                false);
  }

  /**
   * This node's HTTP address ({@code host:port}) as the cluster list names it, to tag what it holds
   * in merged answers; null for a server with no other member (nothing to tell apart).
   */
  public String selfAddress() {
    List<ClusterView.Member> members = view.get().members();
    if (members.size() < 2) {
      return null;
    }
    for (ClusterView.Member member : members) {
      if (member.self()) {
        return member.address();
      }
    }
    return null;
  }

  /** Every member's HTTP address but this node's. */
  public List<String> others() {
    List<String> others = new ArrayList<>();
    for (ClusterView.Member member : view.get().members()) {
      if (!member.self()) {
        others.add(member.address());
      }
    }
    return others;
  }

  /** A Vert.x worker: decode and merge answers there, never on the event loop they arrive on. */
  public Executor worker() {
    return worker;
  }

  /**
   * Asks every other member {@code GET pathAndQuery} and reads each answer with {@code reader} on
   * {@link #worker()}; completes once each answered or failed.
   */
  public <T> CompletableFuture<Gathered<T>> askOthers(
      String pathAndQuery, String token, AnswerReader<T> reader) {
    return ask(others(), pathAndQuery, token, reader);
  }

  /**
   * Asks each of {@code addresses} {@code GET pathAndQuery} and reads each answer with {@code
   * reader} on {@link #worker()}; never completes exceptionally. A member that could not be asked,
   * answered an error, or answered what {@code reader} could not read is in {@link
   * Gathered#missing()} with the reason, so one member's garbage never spoils the merged answer.
   */
  public <T> CompletableFuture<Gathered<T>> ask(
      List<String> addresses, String pathAndQuery, String token, AnswerReader<T> reader) {
    if (addresses.isEmpty()) {
      return CompletableFuture.completedFuture(new Gathered<>(List.of(), List.of()));
    }
    List<CompletableFuture<Object>> asked = new ArrayList<>();
    for (String address : addresses) {
      asked.add(
          get(address, pathAndQuery, token, timeoutMillis)
              .handleAsync(
                  (body, failure) -> {
                    if (failure != null) {
                      return new Missing(address, reason(failure));
                    }
                    try {
                      return new Answer<>(address, reader.read(body));
                    } catch (Exception unreadable) {
                      return new Missing(address, unreadable(unreadable));
                    }
                  },
                  worker));
    }
    return CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new))
        .thenApply(
            done -> {
              List<Answer<T>> answers = new ArrayList<>();
              List<Missing> missing = new ArrayList<>();
              for (CompletableFuture<Object> one : asked) {
                Object result = one.join();
                if (result instanceof Missing m) {
                  missing.add(m);
                } else {
                  @SuppressWarnings("unchecked")
                  Answer<T> answer = (Answer<T>) result;
                  answers.add(answer);
                }
              }
              return new Gathered<>(List.copyOf(answers), List.copyOf(missing));
            });
  }

  /** Why an answer could not be read, in a line for the console. */
  private static String unreadable(Exception e) {
    String detail = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    int newline = detail.indexOf('\n');
    if (newline >= 0) {
      detail = detail.substring(0, newline);
    }
    if (detail.length() > MAX_REASON_DETAIL) {
      detail = detail.substring(0, MAX_REASON_DETAIL) + "...";
    }
    return "answered what could not be read: " + detail.strip();
  }

  /**
   * {@code GET pathAndQuery} of the member at {@code address}, with the caller's token: the body of
   * a 200 answer; fails with the status and the start of the body otherwise, or when the member
   * could not be reached in {@code timeoutMillis} (then it is not asked again for {@value
   * #RETRY_AFTER_MILLIS} ms).
   */
  public CompletableFuture<String> get(
      String address, String pathAndQuery, String token, long timeoutMillis) {
    Unreachable down = unreachable.get(address);
    if (down != null) {
      if (clock.nanoTime() - down.untilNanos() < 0) {
        return CompletableFuture.failedFuture(
            new MemberUnreachableException(
                down.reason()
                    + " at "
                    + CLOCK.format(Instant.ofEpochMilli(down.atMillis()))
                    + " UTC; asked again "
                    + RETRY_AFTER_MILLIS / 1000
                    + " s after"));
      }
      unreachable.remove(address, down);
    }
    int colon = address.lastIndexOf(':');
    RequestOptions options =
        new RequestOptions()
            .setMethod(HttpMethod.GET)
            .setHost(address.substring(0, colon))
            .setPort(Integer.parseInt(address.substring(colon + 1)))
            .setURI(pathAndQuery)
            .setTimeout(timeoutMillis);
    if (token != null) {
      options.putHeader("accessToken", token);
    }
    CompletableFuture<String> answer =
        client()
            .request(options)
            .compose(
                request ->
                    request
                        .send()
                        .compose(
                            response -> {
                              String length = response.getHeader("Content-Length");
                              if (length != null && tooLong(length)) {
                                response.request().reset();
                                return Future.<Buffer>failedFuture(
                                    new MemberAnswerException(
                                        "answered "
                                            + length
                                            + " bytes, more than the "
                                            + MAX_ANSWER_BYTES
                                            + " taken"));
                              }
                              return response
                                  .body()
                                  .compose(
                                      body ->
                                          response.statusCode() == 200
                                              ? Future.succeededFuture(body)
                                              : Future.<Buffer>failedFuture(
                                                  new MemberAnswerException(
                                                      "answered HTTP "
                                                          + response.statusCode()
                                                          + ": "
                                                          + abbreviate(body))));
                            }))
            .map(Buffer::toString)
            .toCompletionStage()
            .toCompletableFuture();
    CompletableFuture<String> result = new CompletableFuture<>();
    answer.whenComplete(
        (body, failure) -> {
          if (failure == null) {
            result.complete(body);
            return;
          }
          Throwable cause = unwrap(failure);
          if (cause instanceof MemberAnswerException) {
            result.completeExceptionally(cause);
            return;
          }
          String reason = unreachableBecause(cause, timeoutMillis);
          unreachable.put(
              address,
              new Unreachable(
                  clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RETRY_AFTER_MILLIS),
                  clock.currentTimeMillis(),
                  reason));
          result.completeExceptionally(new MemberUnreachableException(reason));
        });
    return result;
  }

  /**
   * The caller's access token, to pass on to the members asked on its behalf (with auth on, they
   * check it as this node did); null without one.
   */
  public static String callerToken(HttpServerRequest request, HttpParams params) {
    String token = params.get("accessToken");
    if (token == null || token.isEmpty()) {
      token = request.getHeader("accessToken");
    }
    String authorization = request.getHeader("Authorization");
    if ((token == null || token.isEmpty())
        && authorization != null
        && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      token = authorization.substring(7);
    }
    return token == null || token.isEmpty() ? null : token;
  }

  /** Why a call failed, in a few words for the console. */
  public static String reason(Throwable failure) {
    Throwable cause = unwrap(failure);
    return cause instanceof MemberUnreachableException || cause instanceof MemberAnswerException
        ? cause.getMessage()
        : "could not be asked: " + cause;
  }

  private static String unreachableBecause(Throwable cause, long timeoutMillis) {
    if (cause.getClass().getSimpleName().contains("Timeout")) {
      return "did not answer within " + timeoutMillis + " ms";
    }
    String message = cause.getMessage();
    if (message != null && message.contains("Connection refused")) {
      return "connection refused";
    }
    return "could not be reached: "
        + (message == null ? cause.getClass().getSimpleName() : message);
  }

  private static Throwable unwrap(Throwable failure) {
    Throwable cause = failure;
    while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  private static boolean tooLong(String contentLength) {
    try {
      return Long.parseLong(contentLength.trim()) > MAX_ANSWER_BYTES;
    } catch (NumberFormatException e) {
      return true;
    }
  }

  private static String abbreviate(Buffer body) {
    String text = body.length() > 200 ? body.getString(0, 200) + "..." : body.toString();
    return text.strip();
  }

  private HttpClient client() {
    HttpClient current = client;
    if (current == null) {
      synchronized (this) {
        if (client == null) {
          HttpClientOptions options =
              new HttpClientOptions().setConnectTimeout((int) timeoutMillis);
          if (trustedCertificate != null) {
            options
                .setSsl(true)
                .setVerifyHost(true)
                .setTrustOptions(new PemTrustOptions().addCertPath(trustedCertificate.toString()));
          }
          // At most 4 connections to each member, and a bounded queue of calls waiting for one.
          client =
              vertx.createHttpClient(
                  options,
                  new PoolOptions().setHttp1MaxSize(4).setMaxWaitQueueSize(MAX_WAITING_CALLS));
        }
        current = client;
      }
    }
    return current;
  }

  /** A member skipped because it could not be reached a moment ago. */
  static final class MemberUnreachableException extends RuntimeException {
    MemberUnreachableException(String message) {
      super(message, null, false, false);
    }
  }

  /** A member that answered, but not with what was asked (a status, a body too large). */
  static final class MemberAnswerException extends RuntimeException {
    MemberAnswerException(String message) {
      super(message, null, false, false);
    }
  }
}
