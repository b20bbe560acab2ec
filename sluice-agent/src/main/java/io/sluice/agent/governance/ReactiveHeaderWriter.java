package io.sluice.agent.governance;

import io.sluice.agent.logging.AgentLog;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Sets a header on a Spring {@code ServerHttpRequest} (WebFlux, Spring Cloud Gateway) where it
 * stands, instead of rebuilding the request with {@code mutate()}: see {@link
 * io.sluice.agent.bootstrap.GovernanceHooks#writeRequestHeader}.
 *
 * <p>Spring shows every server request's headers through a read-only view ({@code
 * ReadOnlyHttpHeaders}) over a map that is writable where the server allows it: Reactor Netty's own
 * request headers (through {@code Netty4HeadersAdapter}), or the copy an earlier {@code mutate()}
 * made. Spring's public API unwraps that view into a writable one over the same map: {@code
 * HttpHeaders.writableHttpHeaders} in Spring 6.1 and 6.2, the {@code HttpHeaders(HttpHeaders)}
 * constructor in Spring 7, which removed the former. A rebuild copies every header of the request
 * into a new map in Spring 6.2 and 7 (6.1's {@code mutate()} writes through to the same map, as
 * this does), so writing in place saves one copy of the request's headers per rebuild.
 *
 * <p>Invariant: a write is never assumed to have taken. After it the request must answer the value
 * as the header's first one, or the write counts as failed. A request class whose headers cannot be
 * written in place (an unmodifiable map underneath, as Jetty's request headers are; a decorator
 * that answers a fresh copy) is remembered after its first failure, logged once, and answered
 * "rebuild it" at once from then on; the caller then rebuilds the request, which stays correct.
 *
 * <p>Method handles are looked up once per request class. A write allocates the writable view (one
 * small object) and whatever the map allocates for the entry. Concurrency: per-class state is one
 * volatile flag, only ever cleared; a race at worst tries a failing class twice.
 */
final class ReactiveHeaderWriter {
  private static final String REQUEST =
      "org.springframework.http.server.reactive.ServerHttpRequest";

  private final AgentLog log;
  private final ClassValue<ForClass> byClass =
      new ClassValue<>() {
        @Override
        protected ForClass computeValue(Class<?> type) {
          return ForClass.of(type);
        }
      };

  /**
   * The handles of the request class written last: an application serves one request class (Reactor
   * Netty's) nearly always, and this spares a write the {@link ClassValue}'s lookup. Racy by
   * design: any published {@code ForClass} is complete (final fields) and checked against the
   * class.
   */
  private ForClass last;

  ReactiveHeaderWriter(AgentLog log) {
    this.log = log;
  }

  /**
   * Whether {@code request} carries {@code value} as the first value of header {@code name} now
   * that its headers were written in place (replacing the header's values). False when it must be
   * rebuilt with the header (its headers cannot be written, or it is no Spring reactive request).
   * The request is written whether or not it carried the value already. Never throws.
   */
  boolean write(Object request, String name, String value) {
    if (request == null || name == null || value == null) {
      return false;
    }
    Class<?> type = request.getClass();
    ForClass handles = last;
    if (handles == null || handles.type != type) {
      handles = byClass.get(type);
      if (handles == null) {
        return false;
      }
      last = handles;
    }
    return handles.write(request, name, value, log);
  }

  /** The method handles for one request class, and whether its headers take writes in place. */
  private static final class ForClass {
    private final Class<?> type;
    private final String requestClass;
    private final MethodHandle getHeaders;
    private final MethodHandle getFirst;
    private final MethodHandle writableView;
    private final MethodHandle set;
    private volatile boolean inPlace = true;

    private ForClass(
        Class<?> type,
        String requestClass,
        MethodHandle getHeaders,
        MethodHandle getFirst,
        MethodHandle writableView,
        MethodHandle set) {
      this.type = type;
      this.requestClass = requestClass;
      this.getHeaders = getHeaders;
      this.getFirst = getFirst;
      this.writableView = writableView;
      this.set = set;
    }

    static ForClass of(Class<?> type) {
      Class<?> api = ServiceInstanceTags.interfaceNamed(type, REQUEST);
      if (api == null) {
        return null;
      }
      try {
        Class<?> headers =
            Class.forName("org.springframework.http.HttpHeaders", false, api.getClassLoader());
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        return new ForClass(
            type,
            type.getName(),
            lookup
                .findVirtual(api, "getHeaders", MethodType.methodType(headers))
                .asType(MethodType.methodType(Object.class, Object.class)),
            lookup
                .findVirtual(headers, "getFirst", MethodType.methodType(String.class, String.class))
                .asType(MethodType.methodType(String.class, Object.class, String.class)),
            writableView(lookup, headers).asType(MethodType.methodType(Object.class, Object.class)),
            lookup
                .findVirtual(
                    headers, "set", MethodType.methodType(void.class, String.class, String.class))
                .asType(
                    MethodType.methodType(void.class, Object.class, String.class, String.class)));
      } catch (ReflectiveOperationException e) {
        return null;
      }
    }

    /** Spring 7's unwrapping constructor, else Spring 6's {@code writableHttpHeaders}. */
    private static MethodHandle writableView(MethodHandles.Lookup lookup, Class<?> headers)
        throws ReflectiveOperationException {
      try {
        return lookup.findConstructor(headers, MethodType.methodType(void.class, headers));
      } catch (NoSuchMethodException spring6) {
        return lookup.findStatic(
            headers, "writableHttpHeaders", MethodType.methodType(headers, headers));
      }
    }

    /**
     * Writes without first asking whether the request carries the value already: both callers have
     * just read the header through Spring's typed API and call only when it does not, and each call
     * through these handles (not constants to the JIT, so each runs its lambda forms) costs about
     * as much as the write. A request that did carry it is written again, to the same effect.
     */
    boolean write(Object request, String name, String value, AgentLog log) {
      if (!inPlace) {
        return false;
      }
      try {
        Object headers = getHeaders.invokeExact(request);
        set.invokeExact(writableView.invokeExact(headers), name, value);
        if (value.equals((String) getFirst.invokeExact(getHeaders.invokeExact(request), name))) {
          return true;
        }
        refuse(log, "a header written in place did not show on the request");
      } catch (Throwable t) {
        refuse(log, t.toString());
      }
      return false;
    }

    private void refuse(AgentLog log, String why) {
      if (inPlace) {
        inPlace = false;
        log.info(
            "the headers of "
                + requestClass
                + " cannot be written in place ("
                + why
                + "): such requests are rebuilt to carry the agent's headers");
      }
    }
  }
}
