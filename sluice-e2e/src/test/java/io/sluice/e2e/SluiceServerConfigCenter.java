package io.sluice.e2e;

import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import io.sluice.server.testing.FreePorts;
import java.nio.file.Path;

/**
 * sluice-server itself, started in this JVM on free ports ({@link FreePorts}), and started again on
 * the same ones after {@link #stop}: the agent keeps the address it was given.
 */
final class SluiceServerConfigCenter extends ConfigCenter {
  private final Path dataDir;
  private int port;
  private SluiceServer server;

  private SluiceServerConfigCenter(Path dataDir) {
    this.dataDir = dataDir;
  }

  static SluiceServerConfigCenter start(Path dataDir) {
    SluiceServerConfigCenter center = new SluiceServerConfigCenter(dataDir);
    center.server = FreePorts.startServer(ServerOptions.builder().dataDir(dataDir));
    center.port = center.server.httpPort();
    return center;
  }

  @Override
  String address() {
    return "127.0.0.1:" + port;
  }

  @Override
  void stop() {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  @Override
  void restart() {
    server = SluiceServer.start(ServerOptions.builder().httpPort(port).dataDir(dataDir).build());
  }

  @Override
  void ensureRunning() throws Exception {
    if (server == null) {
      restart();
    }
  }

  @Override
  String kind() {
    return "sluice-server";
  }

  @Override
  public void close() {
    stop();
  }
}
