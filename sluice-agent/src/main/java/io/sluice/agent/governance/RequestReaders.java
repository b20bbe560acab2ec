package io.sluice.agent.governance;

import io.sluice.agent.bootstrap.GovernanceHooks;
import io.sluice.flow.CallAttributes;
import io.sluice.flow.ParamSource;
import io.sluice.flow.lane.RequestReader;

/**
 * The readers of each kind of inbound request, looked up once per request class: for the lanes'
 * entry rules ({@link RequestReader}) and for hot-parameter rules that name a header, query
 * parameter or cookie ({@link CallAttributes}). Both answer from the same method handles, and
 * neither allocates per request.
 */
final class RequestReaders {
  private final ClassValue<RequestReader<Object>> servlet =
      new ClassValue<>() {
        @Override
        protected RequestReader<Object> computeValue(Class<?> type) {
          return ServletRequestReader.forClass(type);
        }
      };
  private final ClassValue<RequestReader<Object>> reactive =
      new ClassValue<>() {
        @Override
        protected RequestReader<Object> computeValue(Class<?> type) {
          return ReactiveRequestReader.forClass(type);
        }
      };
  private final CallAttributes servletAttributes = attributes(servlet);
  private final CallAttributes reactiveAttributes = attributes(reactive);

  /** The reader of {@code request}, of {@link GovernanceHooks}' request {@code kind}; or null. */
  RequestReader<Object> reader(Object request, int kind) {
    if (request == null) {
      return null;
    }
    return kind == GovernanceHooks.SERVLET_REQUEST
        ? servlet.get(request.getClass())
        : kind == GovernanceHooks.REACTIVE_REQUEST ? reactive.get(request.getClass()) : null;
  }

  /** What reads hot-parameter values from requests of {@code kind}; null for an unknown kind. */
  CallAttributes attributes(int kind) {
    return kind == GovernanceHooks.SERVLET_REQUEST
        ? servletAttributes
        : kind == GovernanceHooks.REACTIVE_REQUEST ? reactiveAttributes : null;
  }

  private static CallAttributes attributes(ClassValue<RequestReader<Object>> readers) {
    return (request, source) -> {
      RequestReader<Object> reader = readers.get(request.getClass());
      return reader == null ? null : reader.read(request, sourceOf(source.kind()), source.name());
    };
  }

  private static RequestReader.Source sourceOf(ParamSource.Kind kind) {
    switch (kind) {
      case HEADER:
        return RequestReader.Source.HEADER;
      case QUERY:
        return RequestReader.Source.QUERY;
      default:
        return RequestReader.Source.COOKIE;
    }
  }
}
