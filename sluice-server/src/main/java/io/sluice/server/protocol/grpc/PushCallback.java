package io.sluice.server.protocol.grpc;

/** What a pusher learns about one server-to-client request. Called once, on any thread. */
public interface PushCallback {
  /** The first wait before a push that failed is sent again; it doubles with each failure. */
  long FIRST_RETRY_DELAY_MILLIS = 1_000;

  /** The longest wait between two tries of a push. */
  long MAX_RETRY_DELAY_MILLIS = 16_000;

  void onAcknowledged(NacosResponse response);

  /** The client did not answer in time, answered with an error, or the connection went away. */
  void onFailed(String reason);

  /**
   * How long a pusher waits before sending again after {@code failures} (1 or more) failed pushes
   * in a row: 1, 2, 4, 8, then 16 s. Pushers retry for as long as the connection is open (Nacos
   * retries every second) and never close it over a missed answer: on a loaded node the answer is
   * often sitting unread in the node's own socket, and closing for it made every client of a busy
   * node reconnect, register and subscribe again at once. Whether a client is gone is the idle
   * probe's decision alone ({@link IdleConnectionEjector}).
   */
  static long retryDelayMillis(int failures) {
    int doublings = Math.min(Math.max(failures - 1, 0), 30);
    return Math.min(FIRST_RETRY_DELAY_MILLIS << doublings, MAX_RETRY_DELAY_MILLIS);
  }

  PushCallback IGNORE =
      new PushCallback() {
        @Override
        public void onAcknowledged(NacosResponse response) {}

        @Override
        public void onFailed(String reason) {}
      };
}
