package io.sluice.server.tls;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.config.ConfigService;
import java.util.Properties;

/**
 * The official nacos-client in a JVM of its own (TlsIT starts it), so that the JVM-wide TLS trust
 * it needs for its HTTP calls ({@code javax.net.ssl.trustStore}, read once per JVM) is set before
 * anything in the JVM makes a TLS connection. Logs in over HTTPS with a user name and password,
 * publishes and reads a config over gRPC with TLS, and prints the outcome as {@code PROBE ...}
 * lines.
 *
 * <p>Arguments: server address ({@code https://127.0.0.1:port}), user name, password, data id.
 */
public final class HttpsLoginProbe {
  private HttpsLoginProbe() {}

  public static void main(String[] args) throws Exception {
    Properties properties = new Properties();
    properties.put(PropertyKeyConst.SERVER_ADDR, args[0]);
    properties.put(PropertyKeyConst.USERNAME, args[1]);
    properties.put(PropertyKeyConst.PASSWORD, args[2]);
    properties.put("nacos.remote.client.rpc.tls.enable", "true");
    properties.put("nacos.remote.client.rpc.tls.trustCollectionChainPath", "tls/server-cert.pem");
    ConfigService config = NacosFactory.createConfigService(properties);
    try {
      boolean published = config.publishConfig(args[3], "DEFAULT_GROUP", "tls: yes");
      System.out.println("PROBE published=" + published);
      System.out.println("PROBE read=" + config.getConfig(args[3], "DEFAULT_GROUP", 5000));
    } catch (Exception e) {
      System.out.println("PROBE failed=" + e);
    } finally {
      config.shutDown();
    }
    System.exit(0);
  }
}
