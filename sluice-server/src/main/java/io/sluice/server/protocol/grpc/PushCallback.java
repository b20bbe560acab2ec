package io.sluice.server.protocol.grpc;

/** What a pusher learns about one server-to-client request. Called once, on any thread. */
public interface PushCallback {
  void onAcknowledged(NacosResponse response);

  /** The client did not answer in time, answered with an error, or the connection went away. */
  void onFailed(String reason);

  PushCallback IGNORE =
      new PushCallback() {
        @Override
        public void onAcknowledged(NacosResponse response) {}

        @Override
        public void onFailed(String reason) {}
      };
}
