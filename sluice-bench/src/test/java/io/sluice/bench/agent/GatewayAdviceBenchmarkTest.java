package io.sluice.bench.agent;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The gateway benchmark's request runs the way its figures claim, in every setting. */
class GatewayAdviceBenchmarkTest {
  private static GatewayAdviceBenchmark gateway(String rules, String routeLookup) throws Exception {
    GatewayAdviceBenchmark gateway = new GatewayAdviceBenchmark();
    gateway.rules = rules;
    gateway.routeLookup = routeLookup;
    gateway.setUp();
    return gateway;
  }

  @Test
  void takesAPermitOnTheRouteAndPicksTheGrayInstanceUnderTheDemoRules() throws Exception {
    for (String lookup : new String[] {"slot", "id"}) {
      GatewayAdviceBenchmark gateway = gateway("demo", lookup);

      for (int i = 0; i < 3; i++) {
        assertThat(gateway.gatewayRequest()).as(lookup).isPositive();
      }
      gateway.check();
      assertThat(gateway.routeResource().toString()).startsWith("route-3 ");
    }
  }

  @Test
  void governsNothingWithoutRules() throws Exception {
    GatewayAdviceBenchmark gateway = gateway("none", "slot");

    assertThat(gateway.request(GatewayAdviceBenchmark.PERMIT)).as("no permit taken").isZero();
    gateway.clearHeaders();
    gateway.check();
  }

  @Test
  void leavesTheRequestAsItFoundItAfterEachCall() throws Exception {
    GatewayAdviceBenchmark gateway = gateway("demo", "slot");
    int headers = gateway.netty.size();

    gateway.gatewayRequest();

    assertThat(gateway.netty.size()).isEqualTo(headers);
  }
}
