package io.sluice.server.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * Finds an HTTP port whose companions are free too: gRPC on port + 1000 (the official client
 * derives it) and Raft on port - 1000.
 */
public final class FreePorts {
  private FreePorts() {}

  public static int httpPortWithFreeGrpcPort() {
    for (int attempt = 0; attempt < 200; attempt++) {
      int candidate = 21_000 + (int) (Math.random() * 30_000);
      if (isFree(candidate) && isFree(candidate + 1000) && isFree(candidate - 1000)) {
        return candidate;
      }
    }
    throw new IllegalStateException("no free port pair found");
  }

  private static boolean isFree(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
