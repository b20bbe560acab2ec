package io.sluice.e2e.chain;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The demo chain itself, end to end through the gateway under the agent, written once and run on
 * each Spring generation by the subclasses. The lanes' own scenarios (tagging, routing, fallback)
 * are in their own classes; these prove the chain they run on.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ChainScenarios {
  DemoChain chain;

  abstract SpringGeneration generation();

  @BeforeAll
  void startChain() throws Exception {
    chain = DemoChain.shared(DemoChain.builder().generation(generation()));
  }

  @AfterEach
  void resetChain() throws Exception {
    chain.reset();
  }

  @Test
  void runsEveryInstanceUnderTheAgent() {
    for (ChainInstance instance : chain.instances()) {
      assertThat(instance.output())
          .as("%s", instance)
          .containsPattern("\\[sluice-agent] \\S+ started in \\d+ ms");
    }
  }

  @Test
  void carriesARequestThroughEveryServiceAndAnswersWithItsPath() throws Exception {
    for (String body : bodies("/a/httpTest", 20)) {
      assertThat(body)
          .matches(DemoChain.PATH)
          .startsWith("gateway > a[base] > b[")
          .endsWith(" > c[base]");
    }
  }

  @Test
  void carriesTheAsyncHopAndTheWebClientCallInsideA() throws Exception {
    for (String body : bodies("/a/asyncTest", 10)) {
      assertThat(body)
          .matches(DemoChain.PATH)
          .startsWith("gateway > a[base] > b[")
          .endsWith(" > c[base]");
    }
  }

  @Test
  void keepsUntaggedRequestsOnBaseInstances() throws Exception {
    ChainInstance grayB = chain.instance("b", "gray");
    // The agent put the instance into its lane when it registered (-Dsluice.lane=gray).
    assertThat(chain.registered("b"))
        .anyMatch(r -> r.port() == grayB.port() && "gray".equals(r.metadata().get("sluice.lane")));

    for (String body : bodies("/a/httpTest", 100)) {
      assertThat(body).isEqualTo("gateway > a[base] > b[base] > c[base]");
    }
  }

  /** {@code n} answers through the gateway, each checked to be a 200. */
  List<String> bodies(String path, int n) throws Exception {
    List<String> bodies = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      HttpResponse<String> response = chain.get(path);
      assertThat(response.statusCode()).as("%s: %s", path, response.body()).isEqualTo(200);
      bodies.add(response.body());
    }
    return bodies;
  }
}
