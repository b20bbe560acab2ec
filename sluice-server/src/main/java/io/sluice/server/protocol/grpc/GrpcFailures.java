package io.sluice.server.protocol.grpc;

import io.sluice.server.feature.FeatureException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one translation of failures into gRPC answers, for every request of every feature: a feature
 * refusal by its {@link io.sluice.server.feature.Fault} — invalid input or too large {@link
 * ErrorCodes#INVALID_PARAM}, a bound reached {@link ErrorCodes#OVER_THRESHOLD} (the client backs
 * off), missing credentials or permission {@link ErrorCodes#NO_RIGHT}, a store that cannot take
 * writes or the server's own failure {@link ErrorCodes#SERVER_ERROR} — and anything else as a
 * server error, logged once.
 */
public final class GrpcFailures {
  private static final Logger log = LoggerFactory.getLogger(GrpcFailures.class);

  private GrpcFailures() {}

  /** Marks {@code response} failed as {@code failure} says; returns it. */
  public static <T extends NacosResponse> T fail(T response, Throwable failure) {
    Throwable cause = FeatureException.unwrap(failure);
    if (cause instanceof FeatureException refused) {
      int code =
          switch (refused.fault()) {
            case INVALID, TOO_LARGE -> ErrorCodes.INVALID_PARAM;
            case OVERLOADED -> ErrorCodes.OVER_THRESHOLD;
            // The official client logs in again on 403.
            case UNAUTHENTICATED, FORBIDDEN -> ErrorCodes.NO_RIGHT;
            case UNAVAILABLE -> ErrorCodes.SERVER_ERROR;
            case INTERNAL -> {
              log.error("request failed in the server: {}", refused.getMessage(), cause.getCause());
              yield ErrorCodes.SERVER_ERROR;
            }
          };
      return response.fail(code, refused.getMessage());
    }
    log.error("request failed unexpectedly", cause);
    return response.fail(ErrorCodes.SERVER_ERROR, String.valueOf(cause.getMessage()));
  }
}
