package io.sluice.e2e.dubbo31;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.RpcException;

/**
 * A plain Dubbo 3.1 application: exports {@link HelloService} on the {@code dubbo} protocol and
 * calls it through a reference to its own address (no registry), when asked over HTTP: {@code GET
 * /hello?name=x} answers what the call returned, or 503 with the {@code RpcException}'s message.
 * Takes Spring-style arguments: {@code --server.port} (0: any free port, said on standard output as
 * Spring Boot says it), {@code --dubbo.protocol.port}, {@code --spring.application.name}.
 */
public final class Dubbo31App {
  private Dubbo31App() {}

  public static void main(String[] args) throws IOException {
    Map<String, String> options = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (arg.startsWith("--") && eq > 2) {
        options.put(arg.substring(2, eq), arg.substring(eq + 1));
      }
    }
    int httpPort = Integer.parseInt(options.getOrDefault("server.port", "8080"));
    int dubboPort = Integer.parseInt(options.getOrDefault("dubbo.protocol.port", "20880"));

    ApplicationConfig application =
        new ApplicationConfig(options.getOrDefault("spring.application.name", "dubbo31"));
    application.setQosEnable(false);
    ProtocolConfig protocol = new ProtocolConfig("dubbo", dubboPort);
    protocol.setHost("127.0.0.1");
    ServiceConfig<HelloService> service = new ServiceConfig<>();
    service.setInterface(HelloService.class);
    service.setRef(name -> "hello " + name);
    ReferenceConfig<HelloService> reference = new ReferenceConfig<>();
    reference.setInterface(HelloService.class);
    reference.setUrl("dubbo://127.0.0.1:" + dubboPort);
    reference.setTimeout(5000);
    reference.setRetries(0);
    DubboBootstrap.getInstance()
        .application(application)
        .registry(new RegistryConfig(RegistryConfig.NO_AVAILABLE))
        .protocol(protocol)
        .service(service)
        .reference(reference)
        .start();
    HelloService hello = reference.get();

    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", httpPort), 0);
    http.createContext("/ready", exchange -> answer(exchange, 200, "dubbo31"));
    http.createContext(
        "/hello",
        exchange -> {
          String query = exchange.getRequestURI().getQuery();
          String name = query != null && query.startsWith("name=") ? query.substring(5) : "world";
          try {
            answer(exchange, 200, hello.hello(name));
          } catch (RpcException e) {
            answer(exchange, 503, String.valueOf(e.getMessage()));
          }
        });
    http.start();
    // With --server.port=0 the test learns the port from this line (the words Spring Boot uses).
    System.out.println("Dubbo31App started on port " + http.getAddress().getPort() + " (http)");
  }

  private static void answer(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
