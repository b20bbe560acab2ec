package io.sluice.e2e.chain;

import static org.awaitility.Awaitility.await;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * The chain on the reference generation (Spring Boot 3.5, Spring Cloud 2025.0), plus what the
 * fixture offers the tests: a rule published for one hop, lifted again by a reset.
 */
class Boot35ChainIT extends ChainScenarios {
  @Override
  SpringGeneration generation() {
    return SpringGeneration.SPRING_BOOT_3_5;
  }

  @Test
  @Order(50)
  void appliesARulePublishedForOneHopAndLiftsItWhenTheChainIsReset() throws Exception {
    ChainInstance b = chain.instance("b", DemoChain.BASE);
    HttpClient http = HttpClient.newHttpClient();
    HttpRequest direct = HttpRequest.newBuilder(chain.uri(b, "/b/httpTest")).build();
    chain.publish(
        DemoChain.SENTINEL_GROUP,
        "b-flow-rules",
        "[{\"resource\":\"GET /b/httpTest\",\"grade\":1,\"count\":1}]");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> http.send(direct, HttpResponse.BodyHandlers.discarding()).statusCode() == 429);
    // Through the chain, b's refusal fails a's Feign call (which does not retry): a answers 500.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> chain.get("/a/httpTest").statusCode() == 500);

    chain.reset();
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> bodies("/a/httpTest", 10));
  }
}
