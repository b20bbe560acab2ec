package io.sluice.server.protocol.http;

import io.sluice.server.feature.FeatureException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one translation of failures into HTTP answers, for every endpoint of every feature: a feature
 * refusal by its {@link io.sluice.server.feature.Fault} — invalid input 400, too large 413, no
 * valid credentials 401, no permission 403, a bound reached or a store that cannot take writes 503,
 * the server's own failure 500 — a request the API itself refused ({@link HttpApiException}) as it
 * is, and anything else as a 500, logged once.
 */
public final class HttpFailures {
  private static final Logger log = LoggerFactory.getLogger(HttpFailures.class);

  private HttpFailures() {}

  /**
   * The answer to a failure; invalid input carries {@link NacosErrorCode#PARAMETER_VALIDATE_ERROR}.
   */
  public static HttpApiException of(Throwable failure) {
    return of(failure, NacosErrorCode.PARAMETER_VALIDATE_ERROR);
  }

  /**
   * The answer to a failure, for an API whose v2 error code for invalid input is {@code
   * invalidCode} (the namespace API says {@link NacosErrorCode#ILLEGAL_NAMESPACE}).
   */
  public static HttpApiException of(Throwable failure, NacosErrorCode invalidCode) {
    Throwable cause = FeatureException.unwrap(failure);
    if (cause instanceof HttpApiException refused) {
      return refused;
    }
    if (cause instanceof FeatureException refused) {
      String message = refused.getMessage();
      return switch (refused.fault()) {
        case INVALID -> new HttpApiException(400, invalidCode, message);
        case TOO_LARGE -> HttpApiException.tooLarge(message);
        case UNAUTHENTICATED -> HttpApiException.unauthenticated(message);
        case FORBIDDEN -> HttpApiException.forbidden(message);
        case OVERLOADED, UNAVAILABLE -> HttpApiException.unavailable(message);
        case INTERNAL -> {
          log.error("request failed in the server: {}", message, refused.getCause());
          yield new HttpApiException(500, NacosErrorCode.SERVER_ERROR, message);
        }
      };
    }
    log.error("request failed unexpectedly", cause);
    return new HttpApiException(500, NacosErrorCode.SERVER_ERROR, String.valueOf(cause));
  }
}
