package io.sluice.agent.reporting;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.flow.Direction;
import io.sluice.flow.FlowRegistry;
import io.sluice.flow.Permit;
import io.sluice.flow.Resource;
import io.sluice.flow.RuleKind;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MetricsEndpointTest {
  @Test
  void servesEachResourcesCountsAndResponseTimesOnLoopback() throws Exception {
    AtomicLong nanos = new AtomicLong(1_000_000_000L);
    FlowRegistry registry = FlowRegistry.builder().ticker(nanos::get).build();
    registry.load(RuleKind.FLOW, "[{\"resource\":\"GET /a\\\"b\",\"grade\":1,\"count\":2}]");
    Resource resource = registry.resource("GET /a\"b", Direction.INBOUND);
    for (int i = 0; i < 5; i++) {
      long permit = resource.tryAcquire();
      if (Permit.isAdmitted(permit)) {
        nanos.addAndGet(3_000_000);
        resource.release(permit);
      }
    }
    try (MetricsEndpoint endpoint = MetricsEndpoint.start(0, registry)) {
      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + endpoint.port() + MetricsEndpoint.PATH))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.headers().firstValue("Content-Type").orElse(""))
          .startsWith("text/plain; version=0.0.4");
      assertThat(response.body())
          .contains("# TYPE sluice_resource_passed_total counter\n")
          .contains("sluice_resource_passed_total{resource=\"GET /a\\\"b\"} 2\n")
          .contains("sluice_resource_blocked_total{resource=\"GET /a\\\"b\"} 3\n")
          .contains("sluice_resource_concurrency{resource=\"GET /a\\\"b\"} 0\n");
    }
  }
}
