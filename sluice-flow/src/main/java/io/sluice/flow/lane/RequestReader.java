package io.sluice.flow.lane;

/**
 * Reads the parts of an inbound request that entry rules can match on, for one kind of request (a
 * servlet request, a reactive server request, a Dubbo invocation...). Implementations are stateless
 * and shared, so evaluating rules allocates no reader per request.
 *
 * @param <R> the request type
 */
public interface RequestReader<R> {
  /** The first value of the header, or null. Names are matched case-insensitively. */
  String header(R request, String name);

  /** The value of the cookie, or null. */
  String cookie(R request, String name);

  /** The first value of the query parameter, or null. */
  String query(R request, String name);

  /** The value of {@code name} in {@code source}. */
  default String read(R request, Source source, String name) {
    switch (source) {
      case HEADER:
        return header(request, name);
      case COOKIE:
        return cookie(request, name);
      case QUERY:
        return query(request, name);
      default:
        return null;
    }
  }

  /** Where an entry condition or a sticky key reads its value. */
  enum Source {
    HEADER,
    COOKIE,
    QUERY
  }
}
