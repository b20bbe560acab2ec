package io.sluice.server.protocol.http;

import io.vertx.core.http.HttpServerResponse;

/**
 * How an API generation answers a refused request. Nacos's v1 API answers with the status and the
 * message as plain text (its {@code GlobalExceptionHandler}); v2 answers with the status and a
 * {@code {"code","message","data"}} body whose data is the detail.
 */
public enum ApiStyle {
  V1 {
    @Override
    public void fail(HttpServerResponse response, HttpApiException error) {
      HttpResponses.text(response, error.status(), error.getMessage());
    }
  },
  V2 {
    @Override
    public void fail(HttpServerResponse response, HttpApiException error) {
      HttpResponses.json(
          response,
          error.status(),
          new NacosResult<>(error.code().code(), error.code().message(), error.getMessage()));
    }
  };

  public abstract void fail(HttpServerResponse response, HttpApiException error);
}
