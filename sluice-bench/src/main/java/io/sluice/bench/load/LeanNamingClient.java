package io.sluice.bench.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.bench.load.lean.LeanConnection;
import io.sluice.bench.load.lean.LeanTransport;
import io.sluice.bench.load.lean.PushHandler;
import io.sluice.bench.load.lean.Requests;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The naming operations spoken directly on the gRPC port. Registrations and queries of the
 * throughput scenarios spread over a few connections; since a 2.x server keeps one instance per
 * connection and service, {@code register} on a connection that already has an instance of that
 * service replaces it, which is still one registration for the server to apply and push.
 */
final class LeanNamingClient implements NamingClient {
  static final String NAMESPACE = "public";
  private static final ObjectMapper json = new ObjectMapper();

  private final LeanTransport transport;
  private final Failures failures;
  private final List<LeanConnection> pool;
  private final AtomicLong next = new AtomicLong();

  LeanNamingClient(LeanTransport transport, int connections, Failures failures) {
    this.transport = transport;
    this.failures = failures;
    this.pool = Connections.open(transport, LeanTransport.namingLabels(), connections);
  }

  @Override
  public CompletableFuture<?> register(
      long seq, String service, String ip, int port, Map<String, String> metadata) {
    return register(pool.get((int) (seq % pool.size())), service, ip, port, metadata);
  }

  private static CompletableFuture<?> register(
      LeanConnection c, String service, String ip, int port, Map<String, String> metadata) {
    return c.call(
        "InstanceRequest",
        Requests.instance(
            c.nextRequestId(), "registerInstance", NAMESPACE, GROUP, service, ip, port, metadata));
  }

  @Override
  public CompletableFuture<?> query(String service) {
    LeanConnection c = pool.get((int) (next.getAndIncrement() % pool.size()));
    return c.call(
        "ServiceQueryRequest", Requests.serviceQuery(c.nextRequestId(), NAMESPACE, GROUP, service));
  }

  @Override
  public Provider provider() {
    LeanConnection c = transport.connectNow(LeanTransport.namingLabels(), PushHandler.IGNORE);
    return new Provider() {
      @Override
      public CompletableFuture<?> register(
          String service, String ip, int port, Map<String, String> metadata) {
        return LeanNamingClient.register(c, service, ip, port, metadata);
      }

      @Override
      public CompletableFuture<?> deregister(String service, String ip, int port) {
        return c.call(
            "InstanceRequest",
            Requests.instance(
                c.nextRequestId(),
                "deregisterInstance",
                NAMESPACE,
                GROUP,
                service,
                ip,
                port,
                Map.of()));
      }

      @Override
      public void close() {
        c.close();
      }
    };
  }

  @Override
  public AutoCloseable subscribe(List<String> services, ServiceEvents events) {
    PushHandler onPush =
        (connection, push, received) -> {
          if (!push.type().equals("NotifySubscriberRequest")) {
            return;
          }
          try {
            JsonNode info = json.readTree(push.body()).path("serviceInfo");
            events.pushed(
                info.path("name").asText(),
                ports(info.path("hosts")),
                push.body().length,
                received);
          } catch (IOException e) {
            failures.note(e);
          }
        };
    LeanConnection c = transport.connectNow(LeanTransport.namingLabels(), onPush);
    List<CompletableFuture<?>> subscribed = new java.util.ArrayList<>();
    for (String service : services) {
      subscribed.add(
          c.call(
              "SubscribeServiceRequest",
              Requests.subscribe(c.nextRequestId(), NAMESPACE, GROUP, service, true)));
      if (subscribed.size() == 64) {
        CompletableFuture.allOf(subscribed.toArray(CompletableFuture[]::new)).join();
        subscribed.clear();
      }
    }
    CompletableFuture.allOf(subscribed.toArray(CompletableFuture[]::new)).join();
    return c;
  }

  static int[] ports(JsonNode hosts) {
    int[] ports = new int[hosts.size()];
    for (int i = 0; i < ports.length; i++) {
      ports[i] = hosts.get(i).path("port").asInt();
    }
    return ports;
  }

  @Override
  public void close() {
    pool.forEach(LeanConnection::close);
  }
}
