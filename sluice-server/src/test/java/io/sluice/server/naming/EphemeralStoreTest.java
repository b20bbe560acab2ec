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

  /** Applies a command committed here with what its preview read, as the replicator does. */
  private void apply(byte[] command, long proposerId, long sequence, Object previewReading) {
    store.apply(
        ByteBuffer.wrap(command).asReadOnlyBuffer(), 1, proposerId, sequence, previewReading);
  }

  /** Applies a command that was not previewed here (a replay, a snapshot install, a restart). */
  private void apply(byte[] command, long proposerId, long sequence) {
    apply(command, proposerId, sequence, null);
  }

  private Object preview(byte[] command, long proposerId, long sequence) {
    return store.preview(ByteBuffer.wrap(command).asReadOnlyBuffer(), proposerId, sequence);
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
    Object reading = preview(fromNodeA("10.0.0.1"), 7, 1);
    assertThat(listedIps()).as("listed before the commit").containsExactly("10.0.0.1");
    assertThat(store.entries()).as("the committed copy has nothing yet").isEmpty();

    apply(fromNodeA("10.0.0.1"), 7, 1, reading);
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

  @Test
  void aReplicaKeepsOneCopyOfAPreviewedInstanceAndDoesNotReadItsCommandAgain() {
    Object reading = preview(fromNodeA("10.0.0.1"), 7, 1);
    // The commit is given the preview's reading; its command is not read again (here: not even
    // readable), and the committed copy is the very list the registry listed.
    store.apply(ByteBuffer.allocate(0), 1, 7, 1, reading);

    Instance listed = registry.view(ORDERS).instances().get(0);
    Instance committed = store.entries().values().iterator().next().get(0);
    assertThat(committed).isSameAs(listed);
    assertThat(store.previewCount()).isZero();
  }

  @Test
  void aCommitThatWasNotPreviewedHereReadsItsCommandAndKeepsOneCopy() {
    apply(fromNodeA("10.0.0.1"), 7, 1);

    Instance listed = registry.view(ORDERS).instances().get(0);
    assertThat(store.entries().values().iterator().next().get(0)).isSameAs(listed);
  }

  @Test
  void aCommitNotHandedItsPreviewsReadingStillKeepsTheListedCopy() {
    preview(fromNodeA("10.0.0.1"), 7, 1);
    Instance listed = registry.view(ORDERS).instances().get(0);

    apply(fromNodeA("10.0.0.1"), 7, 1); // e.g. a leader change between append and commit
    assertThat(store.entries().values().iterator().next().get(0)).isSameAs(listed);
    assertThat(registry.view(ORDERS).instances().get(0)).isSameAs(listed);
  }

  @Test
  void aPreviewOfAnOlderBatchStillHandsItsReadingToItsOwnCommit() {
    preview(fromNodeA("10.0.0.1", "10.0.0.2"), 7, 2);
    Object older = preview(fromNodeA("10.0.0.1"), 7, 1);
    assertThat(listedIps()).as("the newer preview stays listed").hasSize(2);

    apply(fromNodeA("10.0.0.1"), 7, 1, older);
    assertThat(store.entries().values().iterator().next())
        .extracting(Instance::ip)
        .containsExactly("10.0.0.1");
    assertThat(listedIps()).hasSize(2);
  }

  @Test
  void theOwnersCopyOfItsOwnInstancesIsTheRegistrysList() {
    registry.register("conn-9", ORDERS, instance("10.0.0.9"));
    apply(
        EphemeralStore.publish("node-b", "inc-b", "conn-9", ORDERS, List.of(instance("10.0.0.9"))));

    assertThat(store.entries().values().iterator().next())
        .isSameAs(registry.publishedBy("conn-9", ORDERS));
  }

  @Test
  void entriesShareTheirNamesWithEachOtherAndTheRegistry() {
    ServiceKey payments = ServiceKey.of("public", "DEFAULT_GROUP", "payments");
    Instance registered =
        InstanceValidator.instance(
            payments, null, "10.0.0.5", 80, null, null, null, true, null, Map.of("zone", "z1"));
    registry.register("conn-local", payments, registered);
    apply(
        EphemeralStore.publish(
            "node-a",
            "inc-a",
            "conn-1",
            ORDERS,
            List.of(
                InstanceValidator.instance(
                    ORDERS,
                    null,
                    "10.0.0.1",
                    80,
                    null,
                    null,
                    null,
                    true,
                    null,
                    Map.of("zone", "z1")))),
        7,
        1);
    apply(
        EphemeralStore.publish(
            "node-a", "inc-a", "conn-1", payments, List.of(instance("10.0.0.2"))),
        7,
        2);

    List<EphemeralStore.Entry> entries = List.copyOf(store.entries().keySet());
    assertThat(entries).hasSize(2);
    assertThat(entries.get(0).owner()).isSameAs(entries.get(1).owner());
    assertThat(entries.get(0).incarnation()).isSameAs(entries.get(1).incarnation());
    EphemeralStore.Entry inPayments =
        entries.stream().filter(e -> e.service().equals(payments)).findFirst().orElseThrow();
    assertThat(inPayments.service()).isSameAs(registry.view(payments).key());

    Instance replicated = registry.view(ORDERS).instances().get(0);
    assertThat(replicated.clusterName()).isSameAs(registered.clusterName());
    Map.Entry<String, String> zone = replicated.metadata().entrySet().iterator().next();
    Map.Entry<String, String> registeredZone = registered.metadata().entrySet().iterator().next();
    assertThat(zone.getKey()).isSameAs(registeredZone.getKey());
    assertThat(zone.getValue()).isSameAs(registeredZone.getValue());
  }
}
