package io.sluice.server.protocol.http;

/**
 * A request the API refuses, with the HTTP status and the v2 error code to answer with. Thrown by
 * request parsing and route handlers; an {@link ApiStyle} renders it. Nothing was changed.
 */
public final class HttpApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final NacosErrorCode code;

  public HttpApiException(int status, NacosErrorCode code, String message) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
  }

  /** A required parameter is absent, worded as Spring words it for Nacos. */
  public static HttpApiException missingParameter(String name) {
    return new HttpApiException(
        400,
        NacosErrorCode.PARAMETER_MISSING,
        "Required request parameter '"
            + name
            + "' for method parameter type String is not present");
  }

  public static HttpApiException invalid(String message) {
    return new HttpApiException(400, NacosErrorCode.PARAMETER_VALIDATE_ERROR, message);
  }

  public static HttpApiException tooLarge(String message) {
    return new HttpApiException(413, NacosErrorCode.PARAMETER_VALIDATE_ERROR, message);
  }

  /** No valid credentials: no token, a bad or expired one. */
  public static HttpApiException unauthenticated(String message) {
    return new HttpApiException(401, NacosErrorCode.ACCESS_DENIED, message);
  }

  /** Valid credentials without the permission the request needs. */
  public static HttpApiException forbidden(String message) {
    return new HttpApiException(403, NacosErrorCode.ACCESS_DENIED, message);
  }

  public static HttpApiException unavailable(String message) {
    return new HttpApiException(503, NacosErrorCode.SERVER_ERROR, message);
  }

  public int status() {
    return status;
  }

  public NacosErrorCode code() {
    return code;
  }
}
