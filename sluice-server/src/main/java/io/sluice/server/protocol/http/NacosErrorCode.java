package io.sluice.server.protocol.http;

/**
 * The error codes of Nacos's v2 Open API ({@code com.alibaba.nacos.api.model.v2.ErrorCode} in
 * 2.3.2): the {@code code} and {@code message} of a {@code {"code","message","data"}} reply. Only
 * the codes Sluice answers with are listed.
 */
public enum NacosErrorCode {
  SUCCESS(0, "success"),
  PARAMETER_MISSING(10000, "parameter missing"),
  ACCESS_DENIED(10001, "access denied"),
  PARAMETER_VALIDATE_ERROR(20002, "parameter validate error"),
  MEDIA_TYPE_ERROR(20003, "MediaType Error"),
  RESOURCE_NOT_FOUND(20004, "resource not found"),
  RESOURCE_CONFLICT(20005, "resource conflict"),
  ILLEGAL_NAMESPACE(22000, "illegal namespace"),
  NAMESPACE_NOT_EXIST(22001, "namespace not exist"),
  NAMESPACE_ALREADY_EXIST(22002, "namespace already exist"),
  SERVER_ERROR(30000, "server error");

  private final int code;
  private final String message;

  NacosErrorCode(int code, String message) {
    this.code = code;
    this.message = message;
  }

  public int code() {
    return code;
  }

  public String message() {
    return message;
  }
}
