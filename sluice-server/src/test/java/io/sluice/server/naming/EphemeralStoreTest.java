package io.sluice.server.naming;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.testing.ManualClock;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EphemeralStoreTest {
  private static final ServiceKey ORDERS = ServiceKey.of("public", "DEFAULT_GROUP", "orders");

  private final ManualClock clock = new ManualClock();
  private final ServiceRegistry registry = new ServiceRegistry(clock);
  private final EphemeralStore store = new EphemeralStore(registry, clock, "node-b", "inc-b");

  private static Instance instance(String ip) {
    return InstanceValidator.instance(ORDERS, null, ip, 80, null, null, null, true, null, Map.of());
  }

  private void apply(byte[] command) {
    store.apply(ByteBuffer.wrap(command).asReadOnlyBuffer(), 1);
  }

  private void apply(byte[] command, long proposerId, long sequence) {
    store.apply(ByteBuffer.wrap(command).asReadOnlyBuffer(), 1, proposerId, sequence);
  }

  private void preview(byte[] command, long proposerId, long sequence) {
    store.preview(ByteBuffer.wrap(command).asReadOnlyBuffer(), proposerId, sequence);
  }

  private static byte[] fromNodeA(String... ips) {
    List<Instance> instances = java.util.Arrays.stream(ips).map(ip -> instance(ip)).toList();
    return EphemeralStore.publish("node-a", "inc-a", "conn-1", ORDERS, instances);
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
    EphemeralStore restored = new EphemeralStore(fresh, clock, "node-c", "inc-c");
    restored.loadSnapshot(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));

    assertThat(fresh.view(ORDERS).instances()).extracting(Instance::ip).containsExactly("10.0.0.1");
    assertThat(restored.entries()).hasSize(1);
  }

  @Test
  void listsAPublicationAsSoonAsItIsInTheLogAndKeepsListingItOnceItCommits() {
    preview(fromNodeA("10.0.0.1"), 7, 1);
    assertThat(listedIps()).as("listed before the commit").containsExactly("10.0.0.1");
    assertThat(store.entries()).as("the committed copy has nothing yet").isEmpty();

    apply(fromNodeA("10.0.0.1"), 7, 1);
    assertThat(listedIps()).containsExactly("10.0.0.1");
    assertThat(store.entries()).hasSize(1);
    assertThat(store.previewCount()).isZero();
  }

  @Test
  void theCommitOfAnOlderBatchNeverStepsTheListBackBehindANewerPreview() {
    preview(fromNodeA("10.0.0.1"), 7, 1);
    preview(fromNodeA(), 7, 2); // the instance went away again, not committed yet

    apply(fromNodeA("10.0.0.1"), 7, 1);
    assertThat(listedIps()).as("still the newer preview").isEmpty();
    assertThat(store.entries()).as("the committed copy follows the log").hasSize(1);

    apply(fromNodeA(), 7, 2);
    assertThat(listedIps()).isEmpty();
    assertThat(store.entries()).isEmpty();
    assertThat(store.previewCount()).isZero();
  }

  @Test
  void aCommitFromAnotherProposerReplacesAPreview() {
    preview(fromNodeA("10.0.0.1"), 7, 9);
    apply(fromNodeA("10.0.0.2"), 8, 1);
    assertThat(listedIps()).containsExactly("10.0.0.2");
    assertThat(store.previewCount()).isZero();
  }

  @Test
  void aPreviewWhoseBatchNeverCommitsIsWithdrawnAfterTheExpiry() {
    apply(fromNodeA("10.0.0.1"), 7, 1);
    preview(fromNodeA("10.0.0.1", "10.0.0.2"), 7, 2);
    assertThat(listedIps()).containsExactlyInAnyOrder("10.0.0.1", "10.0.0.2");

    clock.advance(Duration.ofMillis(EphemeralStore.PREVIEW_EXPIRY_MILLIS - 1));
    store.withdrawExpiredPreviews();
    assertThat(listedIps()).hasSize(2);

    clock.advance(Duration.ofMillis(1));
    store.withdrawExpiredPreviews();
    assertThat(listedIps()).as("back to the committed copy").containsExactly("10.0.0.1");
    assertThat(store.previewCount()).isZero();
  }

  @Test
  void droppingANodeAlsoWithdrawsWhatWasPreviewedOfIt() {
    preview(fromNodeA("10.0.0.1"), 7, 1);
    apply(EphemeralStore.drop("node-a", ""), 3, 1);
    assertThat(listedIps()).isEmpty();
    assertThat(store.previewCount()).isZero();
  }

  @Test
  void thisNodesOwnPublicationsAreNotPreviewed() {
    preview(
        EphemeralStore.publish("node-b", "inc-b", "conn-9", ORDERS, List.of(instance("10.0.0.9"))),
        7,
        1);
    assertThat(listedIps()).isEmpty();
    assertThat(store.previewCount()).isZero();
  }

  @Test
  void aPreviewNeverReachesTheSnapshot() throws Exception {
    preview(fromNodeA("10.0.0.1"), 7, 1);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    store.writeSnapshot(new DataOutputStream(bytes));

    ServiceRegistry fresh = new ServiceRegistry(new ManualClock());
    EphemeralStore restored = new EphemeralStore(fresh, clock, "node-c", "inc-c");
    restored.loadSnapshot(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
    assertThat(restored.entries()).isEmpty();
    assertThat(fresh.view(ORDERS)).isNull();
  }
}
