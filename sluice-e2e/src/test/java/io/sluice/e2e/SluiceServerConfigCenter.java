package io.sluice.e2e;

import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import java.nio.file.Path;

/** sluice-server itself, started in this JVM on a free port. */
final class SluiceServerConfigCenter extends ConfigCenter {
  private final Path dataDir;
  private int port;
  private SluiceServer server;

  private SluiceServerConfigCenter(Path dataDir) {
    this.dataDir = dataDir;
  }

  static SluiceServerConfigCenter start(Path dataDir, int port) {
    SluiceServerConfigCenter center = new SluiceServerConfigCenter(dataDir);
    center.port = port;
    center.restart();
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
    port = server.httpPort();
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
