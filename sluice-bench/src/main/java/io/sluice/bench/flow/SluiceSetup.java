package io.sluice.bench.flow;

import io.sluice.flow.Direction;
import io.sluice.flow.FlowRegistry;
import io.sluice.flow.Resource;
import io.sluice.flow.RuleKind;

/** Builds the sluice-flow side of a benchmark: one registry with the system clock. */
final class SluiceSetup {

  private SluiceSetup() {}

  static FlowRegistry registry(boolean statisticsForAllResources) {
    return FlowRegistry.builder().statisticsForAllResources(statisticsForAllResources).build();
  }

  static Resource withQpsRule(FlowRegistry registry, String name, double count) {
    registry.load(
        RuleKind.FLOW, "[{\"resource\":\"" + name + "\",\"grade\":1,\"count\":" + count + "}]");
    return registry.resource(name, Direction.INBOUND);
  }
}
