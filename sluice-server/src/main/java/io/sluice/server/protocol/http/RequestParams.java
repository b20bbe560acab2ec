package io.sluice.server.protocol.http;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a request's parameters (query string, then a form body) with the body bounded while it is
 * read, then calls a {@link ParamsHandler}. A body declared or found larger than the bound is
 * answered 413 and its connection closed, so it is never buffered whole; a malformed encoding is
 * answered 400. Whatever a handler throws becomes an error reply, never a dead connection.
 */
public final class RequestParams {
  private static final Logger log = LoggerFactory.getLogger(RequestParams.class);

  private static final String FORM = "application/x-www-form-urlencoded";

  private RequestParams() {}

  /** Where {@link HttpApiServer} leaves the server's {@link HttpAccess} in a routing context. */
  static final String ACCESS = "sluice.access";

  /** Where {@link HttpApiServer} leaves the port's {@link BodyBudget}. */
  static final String BUDGET = "sluice.budget";

  /** Bodies read outside the router (held long-polls, at most a few KiB each) are not counted. */
  private static final BodyBudget UNCOUNTED = new BodyBudget(Long.MAX_VALUE);

  /**
   * A route handler that reads the parameters, checks them with the server's {@link HttpAccess},
   * then runs {@code handler}.
   */
  public static Handler<RoutingContext> handler(
      long maxBodyBytes, ApiStyle style, ParamsHandler handler) {
    return handler(maxBodyBytes, style, null, handler);
  }

  /**
   * As {@link #handler(long, ApiStyle, ParamsHandler)}, but the form body's field {@code keep} is
   * not decoded into a {@code String}: the handler reads it with {@link HttpParams#bytes}, from the
   * body's own bytes (for a large value the route parses itself).
   */
  public static Handler<RoutingContext> handler(
      long maxBodyBytes, ApiStyle style, String keep, ParamsHandler handler) {
    return ctx -> {
      HttpAccess access = ctx.get(ACCESS);
      BodyBudget budget = ctx.get(BUDGET);
      read(
          ctx.request(),
          maxBodyBytes,
          style,
          access == null ? HttpAccess.OPEN : access,
          budget == null ? UNCOUNTED : budget,
          keep,
          handler);
    };
  }

  /** Reads the parameters, checks them with {@code access}, then runs {@code handler}. */
  public static void read(
      HttpServerRequest request,
      long maxBodyBytes,
      ApiStyle style,
      HttpAccess access,
      ParamsHandler handler) {
    read(request, maxBodyBytes, style, access, UNCOUNTED, null, handler);
  }

  private static void read(
      HttpServerRequest request,
      long maxBodyBytes,
      ApiStyle style,
      HttpAccess access,
      BodyBudget budget,
      String keep,
      ParamsHandler handler) {
    ParamsHandler checked =
        access == HttpAccess.OPEN
            ? handler
            : (r, params) -> {
              access.check(r, params);
              handler.handle(r, params);
            };
    readUnchecked(request, maxBodyBytes, style, budget, keep, checked);
  }

  private static void readUnchecked(
      HttpServerRequest request,
      long maxBodyBytes,
      ApiStyle style,
      BodyBudget budget,
      String keep,
      ParamsHandler handler) {
    HttpServerResponse response = request.response();
    Map<String, String> values = new LinkedHashMap<>();
    int pairs;
    try {
      String query = request.query();
      pairs =
          query == null
              ? 0
              : FormDecoder.decode(query.getBytes(StandardCharsets.ISO_8859_1), values, 0);
    } catch (HttpApiException e) {
      refuse(request, style, e);
      return;
    }
    if (request.isEnded()) {
      dispatch(request, new HttpParams(values), style, handler);
      return;
    }
    String contentType = request.getHeader("Content-Type");
    String type = contentType == null ? "" : contentType.toLowerCase(Locale.ROOT).trim();
    if (type.startsWith("multipart/")) {
      refuse(
          request,
          style,
          new HttpApiException(
              415,
              NacosErrorCode.MEDIA_TYPE_ERROR,
              "multipart bodies are not supported: send " + FORM));
      return;
    }
    boolean form = type.isEmpty() || type.startsWith(FORM);
    long declared = declaredLength(request);
    if (declared > maxBodyBytes) {
      tooLarge(request, style, declared, maxBodyBytes);
      return;
    }
    // The handlers below stay referenced by the request until it is answered, which for a held
    // long-poll is minutes: they must not keep the body or the parameters decoded from it.
    Map<String, String> fromQuery = values;
    BodyCollector body = new BodyCollector(request, maxBodyBytes, style, form, declared, budget);
    request.handler(body);
    request.exceptionHandler(
        e -> {
          body.drop();
          log.debug("request body broke off: {}", e.toString());
        });
    request.endHandler(
        ended -> {
          if (body.overflowed) {
            return;
          }
          byte[] bytes = body.take();
          HttpParams params;
          try {
            Map<String, String> all = fromQuery;
            FormValue kept = null;
            if (bytes.length > 0) {
              all = new LinkedHashMap<>(fromQuery);
              kept = FormDecoder.decodeKeeping(bytes, all, pairs, keep);
            }
            params = new HttpParams(all, keep, kept);
          } catch (HttpApiException e) {
            style.fail(response, e);
            return;
          }
          dispatch(request, params, style, handler);
        });
    request.resume();
  }

  private static void dispatch(
      HttpServerRequest request, HttpParams params, ApiStyle style, ParamsHandler handler) {
    try {
      handler.handle(request, params);
    } catch (RuntimeException e) {
      style.fail(request.response(), HttpFailures.of(e));
    }
  }

  /** Answers an error before the body was read; discards the body so the connection stays sane. */
  private static void refuse(HttpServerRequest request, ApiStyle style, HttpApiException error) {
    if (!request.isEnded()) {
      request.handler(ignored -> {});
      request.resume();
    }
    style.fail(request.response(), error);
  }

  private static void tooLarge(
      HttpServerRequest request, ApiStyle style, long bytes, long maxBodyBytes) {
    refuseMidBody(
        request,
        style,
        HttpApiException.tooLarge(
            "request body of "
                + (bytes < 0 ? "more than " + maxBodyBytes : bytes)
                + " bytes exceeds the limit of "
                + maxBodyBytes
                + " bytes"));
  }

  private static void overBudget(HttpServerRequest request, ApiStyle style, BodyBudget budget) {
    refuseMidBody(
        request,
        style,
        HttpApiException.unavailable(
            "the server is reading "
                + budget.max()
                + " bytes of request bodies already, its limit (max-buffered-request-bytes);"
                + " retry later"));
  }

  /**
   * Answers a request whose body is still arriving. HTTP/1 cannot skip the rest of the body, so its
   * connection closes once the answer is out; HTTP/2 ends just this stream.
   */
  private static void refuseMidBody(
      HttpServerRequest request, ApiStyle style, HttpApiException error) {
    HttpServerResponse response = request.response();
    if (response.ended() || response.closed()) {
      return;
    }
    boolean http2 = request.version() == HttpVersion.HTTP_2;
    if (!http2) {
      response.putHeader("Connection", "close");
    }
    style.fail(response, error);
    if (!http2) {
      request.connection().close();
    }
  }

  private static long declaredLength(HttpServerRequest request) {
    String length = request.getHeader("Content-Length");
    if (length == null) {
      return -1;
    }
    try {
      return Long.parseLong(length.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * Gathers the body up to the bound, each kept chunk reserved in the port's budget; past the bound
   * answers 413, past the budget 503, and closes the connection.
   */
  private static final class BodyCollector implements Handler<Buffer> {
    private final HttpServerRequest request;
    private final long maxBodyBytes;
    private final ApiStyle style;
    private final boolean keep;
    private final BodyBudget budget;
    private Buffer buffer;
    private long received;
    private long reserved;
    boolean overflowed;

    BodyCollector(
        HttpServerRequest request,
        long maxBodyBytes,
        ApiStyle style,
        boolean keep,
        long declared,
        BodyBudget budget) {
      this.request = request;
      this.maxBodyBytes = maxBodyBytes;
      this.style = style;
      this.keep = keep;
      this.budget = budget;
      this.buffer = keep ? Buffer.buffer((int) Math.max(256, Math.min(declared, 64 * 1024))) : null;
    }

    @Override
    public void handle(Buffer chunk) {
      if (overflowed) {
        return;
      }
      received += chunk.length();
      if (received > maxBodyBytes) {
        overflowed = true;
        drop();
        tooLarge(request, style, -1, maxBodyBytes);
        return;
      }
      if (keep) {
        if (!budget.tryReserve(chunk.length())) {
          overflowed = true;
          drop();
          overBudget(request, style, budget);
          return;
        }
        reserved += chunk.length();
        buffer.appendBuffer(chunk);
      }
    }

    /** The body's bytes (none unless it is a form); lets go of the buffer and its reservation. */
    byte[] take() {
      byte[] bytes = keep && buffer != null ? buffer.getBytes() : new byte[0];
      drop();
      return bytes;
    }

    /** Lets go of the buffer and gives its bytes back to the budget; idempotent. */
    void drop() {
      buffer = null;
      budget.release(reserved);
      reserved = 0;
    }
  }
}
