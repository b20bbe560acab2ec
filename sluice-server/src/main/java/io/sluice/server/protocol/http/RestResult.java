package io.sluice.server.protocol.http;

/**
 * The envelope some v1 endpoints answer with ({@code com.alibaba.nacos.common.model.RestResult}):
 * {@code code} 200 on success, an optional message, the data.
 */
public record RestResult<T>(int code, String message, T data) {
  public static <T> RestResult<T> ok(String message, T data) {
    return new RestResult<>(200, message, data);
  }
}
