package io.sluice.server.testing;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.config.ConfigService;
import com.alibaba.nacos.api.exception.NacosException;
import com.alibaba.nacos.api.naming.NamingService;
import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * A Sluice server started for the official nacos-client tests, and the clients they make against
 * it: each client is created as an application would create it (server address, optional namespace)
 * and shut down when the fixture closes, before the server.
 */
public final class OfficialClients implements AutoCloseable {
  private final SluiceServer server;
  private final List<Object> open = new ArrayList<>();

  private OfficialClients(SluiceServer server) {
    this.server = server;
  }

  /** Starts a server on free ports over {@code dataDir} and waits until it is ready. */
  public static OfficialClients start(Path dataDir) {
    return start(dataDir, UnaryOperator.identity());
  }

  /** As {@link #start(Path)}, with options of the test's own (auth, limits). */
  public static OfficialClients start(Path dataDir, UnaryOperator<ServerOptions.Builder> options) {
    // The client writes its own logs; keep them under target/ instead of the home directory.
    System.setProperty("JM.LOG.PATH", Path.of("target", "nacos-client-logs").toString());
    SluiceServer server =
        FreePorts.startServer(
            options.apply(
                ServerOptions.builder()
                    .dataDir(dataDir)
                    .grpcTransport(GrpcTransportUnderTest.get())
                    .ioTransport(GrpcTransportUnderTest.io())));
    if (!server.awaitReady(30, TimeUnit.SECONDS)) {
      server.close();
      throw new IllegalStateException("the server did not become ready within 30 s");
    }
    return new OfficialClients(server);
  }

  public SluiceServer server() {
    return server;
  }

  /** A config client; {@code namespace} null means the public namespace. */
  public ConfigService configService(String namespace) throws NacosException {
    ConfigService client = NacosFactory.createConfigService(properties(namespace));
    open.add(client);
    return client;
  }

  /**
   * A config client logging in as an application configured with {@code username} and {@code
   * password} would.
   */
  public ConfigService configService(String namespace, String username, String password)
      throws NacosException {
    ConfigService client =
        NacosFactory.createConfigService(credentials(properties(namespace), username, password));
    open.add(client);
    return client;
  }

  /** A naming client logging in with {@code username} and {@code password}. */
  public NamingService namingService(String namespace, String username, String password)
      throws NacosException {
    NamingService client =
        NacosFactory.createNamingService(credentials(properties(namespace), username, password));
    open.add(client);
    return client;
  }

  /** A config client with properties of the test's own (TLS settings) added. */
  public ConfigService configService(Properties extra) throws NacosException {
    Properties properties = properties(null);
    properties.putAll(extra);
    ConfigService client = NacosFactory.createConfigService(properties);
    open.add(client);
    return client;
  }

  private static Properties credentials(Properties properties, String username, String password) {
    properties.put(PropertyKeyConst.USERNAME, username);
    properties.put(PropertyKeyConst.PASSWORD, password);
    return properties;
  }

  /** A naming client; {@code namespace} null means the public namespace. */
  public NamingService namingService(String namespace) throws NacosException {
    NamingService client = NacosFactory.createNamingService(properties(namespace));
    open.add(client);
    return client;
  }

  /** Shuts one client down now, as an application that stops would; closing skips it then. */
  public void shutDown(Object client) throws NacosException {
    open.remove(client);
    shutDownClient(client);
  }

  @Override
  public void close() throws NacosException {
    try {
      for (Object client : open) {
        shutDownClient(client);
      }
      open.clear();
    } finally {
      server.close();
    }
  }

  private Properties properties(String namespace) {
    Properties properties = new Properties();
    properties.put(PropertyKeyConst.SERVER_ADDR, "127.0.0.1:" + server.httpPort());
    if (namespace != null) {
      properties.put(PropertyKeyConst.NAMESPACE, namespace);
    }
    return properties;
  }

  private static void shutDownClient(Object client) throws NacosException {
    if (client instanceof ConfigService config) {
      config.shutDown();
    } else if (client instanceof NamingService naming) {
      naming.shutDown();
    }
  }
}
