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
  SERVICE_NAME_ERROR(21000, "service name error"),
  WEIGHT_ERROR(21001, "weight error"),
  INSTANCE_METADATA_ERROR(21002, "instance metadata error"),
  INSTANCE_NOT_FOUND(21003, "instance not found"),
  INSTANCE_ERROR(21004, "instance error"),
  SERVICE_METADATA_ERROR(21005, "service metadata error"),
  SELECTOR_ERROR(21006, "selector error"),
  SERVICE_ALREADY_EXIST(21007, "service already exist"),
  SERVICE_NOT_EXIST(21008, "service not exist"),
  SERVICE_DELETE_FAILURE(21009, "service delete failure"),
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
