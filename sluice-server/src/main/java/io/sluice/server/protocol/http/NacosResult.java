package io.sluice.server.protocol.http;

/**
 * The v2 Open API envelope ({@code com.alibaba.nacos.api.model.v2.Result}): {@code code} 0 and
 * {@code message} "success" on success, else an error code, its message and the detail in {@code
 * data}.
 */
public record NacosResult<T>(int code, String message, T data) {
  public static <T> NacosResult<T> success(T data) {
    return new NacosResult<>(NacosErrorCode.SUCCESS.code(), NacosErrorCode.SUCCESS.message(), data);
  }
}
