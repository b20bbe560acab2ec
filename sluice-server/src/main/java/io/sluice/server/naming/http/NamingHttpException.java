package io.sluice.server.naming.http;

/**
 * A naming HTTP request that failed, with what both API versions need to say so: the HTTP status
 * and detail (the whole v1 answer, in plain text), and the v2 error code and its abstract, which
 * the v2 envelope carries as {@code {"code":...,"message":...,"data":detail}}. Codes are Nacos's
 * ({@code com.alibaba.nacos.api.model.v2.ErrorCode}).
 */
final class NamingHttpException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  static final int PARAMETER_MISSING = 10000;
  static final int PARAMETER_VALIDATE_ERROR = 20002;
  static final int RESOURCE_NOT_FOUND = 20004;
  static final int WEIGHT_ERROR = 21001;
  static final int INSTANCE_METADATA_ERROR = 21002;
  static final int INSTANCE_NOT_FOUND = 21003;
  static final int INSTANCE_ERROR = 21004;
  static final int SERVICE_METADATA_ERROR = 21005;
  static final int SELECTOR_ERROR = 21006;
  static final int SERVICE_ALREADY_EXIST = 21007;
  static final int SERVICE_NOT_EXIST = 21008;
  static final int SERVICE_DELETE_FAILURE = 21009;
  static final int SERVER_ERROR = 30000;

  final int status;
  final int code;
  final String abstractMessage;

  NamingHttpException(int status, int code, String abstractMessage, String detail) {
    super(detail);
    this.status = status;
    this.code = code;
    this.abstractMessage = abstractMessage;
  }

  static NamingHttpException missing(String parameter) {
    return new NamingHttpException(
        400, PARAMETER_MISSING, "parameter missing", "Param '" + parameter + "' is required.");
  }

  static NamingHttpException invalid(String detail) {
    return new NamingHttpException(
        400, PARAMETER_VALIDATE_ERROR, "parameter validate error", detail);
  }

  static NamingHttpException invalid(int code, String abstractMessage, String detail) {
    return new NamingHttpException(400, code, abstractMessage, detail);
  }

  static NamingHttpException notFound(int code, String abstractMessage, String detail) {
    return new NamingHttpException(404, code, abstractMessage, detail);
  }

  static NamingHttpException unavailable(String detail) {
    return new NamingHttpException(503, SERVER_ERROR, "server error", detail);
  }

  static NamingHttpException serverError(String detail) {
    return new NamingHttpException(500, SERVER_ERROR, "server error", detail);
  }
}
