package io.sluice.bench.load.lean;

/** The server answered a request with a failure ({@code resultCode != 200}). */
public final class NacosErrorException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int errorCode;

  public NacosErrorException(String responseType, int errorCode, String message) {
    super(responseType + " errorCode " + errorCode + ": " + message, null, false, false);
    this.errorCode = errorCode;
  }

  public int errorCode() {
    return errorCode;
  }
}
