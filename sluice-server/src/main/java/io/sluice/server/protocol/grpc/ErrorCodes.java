package io.sluice.server.protocol.grpc;

/** The Nacos error codes a client reacts to (see {@code NacosException} in the protocol notes). */
public final class ErrorCodes {
  /** The server is starting; the client retries. */
  public static final int INVALID_SERVER_STATUS = 300;

  /** The connection is not registered; the client reconnects. */
  public static final int UN_REGISTER = 301;

  /** No handler for the request type. */
  public static final int NO_HANDLER = 302;

  public static final int INVALID_PARAM = 400;
  public static final int NO_RIGHT = 403;
  public static final int NOT_FOUND = 404;
  public static final int CONFLICT = 409;
  public static final int SERVER_ERROR = 500;

  /** The payload could not be parsed. */
  public static final int BAD_GATEWAY = 502;

  /** Too many requests; the client backs off. */
  public static final int OVER_THRESHOLD = 503;

  private ErrorCodes() {}
}
