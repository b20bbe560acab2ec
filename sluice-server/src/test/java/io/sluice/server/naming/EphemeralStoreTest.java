package io.sluice.server.naming;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.testing.ManualClock;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EphemeralStoreTest {
  private static final ServiceKey ORDERS = ServiceKey.of("public", "DEFAULT_GROUP", "orders");

  private final ServiceRegistry registry = new ServiceRegistry(new ManualClock());
  private final EphemeralStore store = new EphemeralStore(registry, "node-b", "inc-b");

  private static Instance instance(String ip) {
    return InstanceValidator.instance(ORDERS, null, ip, 80, null, null, null, true, null, Map.of());
  }

  private void apply(byte[] command) {
    store.apply(ByteBuffer.wrap(command).asReadOnlyBuffer(), 1);
  }

  private List<String> listedIps() {
    ServiceView view = registry.view(ORDERS);
    return view == null ? List.of() : view.instances().stream().map(Instance::ip).toList();
  }

  @Test
  void listsWhatAnotherNodePublishesAndForgetsItWhenItsOwnerRemovesIt() {
    apply(
        EphemeralStore.publish("node-a", "inc-a", "conn-1", ORDERS, List.of(instance("10.0.0.1"))));
    assertThat(listedIps()).containsExactly("10.0.0.1");

    apply(EphemeralStore.publish("node-a", "inc-a", "conn-1", ORDERS, List.of()));
    assertThat(listedIps()).isEmpty();
    assertThat(store.entries()).isEmpty();
  }

  @Test
  void droppingANodeRemovesEveryIncarnationButTheOneKept() {
    apply(EphemeralStore.publish("node-a", "old", "conn-1", ORDERS, List.of(instance("10.0.0.1"))));
    apply(EphemeralStore.publish("node-a", "new", "conn-2", ORDERS, List.of(instance("10.0.0.2"))));
    apply(
        EphemeralStore.publish("node-c", "inc-c", "conn-3", ORDERS, List.of(instance("10.0.0.3"))));

    apply(EphemeralStore.drop("node-a", "new"));
    assertThat(listedIps()).containsExactlyInAnyOrder("10.0.0.2", "10.0.0.3");

    apply(EphemeralStore.drop("node-a", ""));
    assertThat(listedIps()).containsExactly("10.0.0.3");
  }

  @Test
  void thisNodesOwnInstancesAreKeptInTheCopyButNotListedTwice() {
    registry.register("conn-9", ORDERS, instance("10.0.0.9"));
    apply(
        EphemeralStore.publish("node-b", "inc-b", "conn-9", ORDERS, List.of(instance("10.0.0.9"))));

    assertThat(listedIps()).containsExactly("10.0.0.9");
    assertThat(store.entries()).hasSize(1);
  }

  @Test
  void aSnapshotRestoresEveryNodesInstancesIntoAFreshRegistry() throws Exception {
    apply(
        EphemeralStore.publish("node-a", "inc-a", "conn-1", ORDERS, List.of(instance("10.0.0.1"))));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    store.writeSnapshot(new DataOutputStream(bytes));

    ServiceRegistry fresh = new ServiceRegistry(new ManualClock());
    EphemeralStore restored = new EphemeralStore(fresh, "node-c", "inc-c");
    restored.loadSnapshot(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));

    assertThat(fresh.view(ORDERS).instances()).extracting(Instance::ip).containsExactly("10.0.0.1");
    assertThat(restored.entries()).hasSize(1);
  }
}
