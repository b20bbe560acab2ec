package io.sluice.server.naming;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.naming.NamingCommand.CreateService;
import io.sluice.server.naming.NamingCommand.DeleteService;
import io.sluice.server.naming.NamingCommand.PutInstance;
import io.sluice.server.naming.NamingCommand.RemoveInstance;
import io.sluice.server.naming.NamingCommand.SetClusterCheck;
import io.sluice.server.naming.NamingCommand.UpdateInstance;
import io.sluice.server.naming.NamingCommand.UpdateService;
import io.sluice.server.naming.health.HealthCheck;
import io.sluice.server.replication.LengthPrefixedString;
import io.sluice.server.testing.ManualClock;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NamingStoreTest {
  private static final ServiceKey DB = ServiceKey.of("public", "DEFAULT_GROUP", "db");

  private final ServiceRegistry registry = new ServiceRegistry(new ManualClock());
  private final NamingStore store = new NamingStore(registry);
  private long index;

  private Object apply(NamingCommand command) {
    return apply(store, NamingCommand.encode(command));
  }

  private Object apply(NamingStore target, byte[] command) {
    return target.apply(ByteBuffer.wrap(command).asReadOnlyBuffer(), ++index);
  }

  private static Instance persistent(int port, Map<String, String> metadata) {
    return InstanceValidator.instance(
        DB, null, "10.0.0.1", port, 2.0, true, true, false, null, metadata);
  }

  private static ServiceMeta meta(Map<String, String> metadata) {
    return new ServiceMeta(0.5f, metadata, null);
  }

  @Test
  void createsAServiceOnlyWhenNothingMakesItExistAlready() {
    assertThat(apply(new CreateService(DB, meta(Map.of("a", "1")), false)))
        .isEqualTo(NamingOutcome.APPLIED);
    assertThat(apply(new CreateService(DB, meta(Map.of("a", "2")), false)))
        .isEqualTo(new NamingOutcome.ServiceExists(DB));
    assertThat(registry.meta(DB).metadata()).containsEntry("a", "1");

    ServiceKey ephemeralOnly = ServiceKey.of("public", "DEFAULT_GROUP", "web");
    assertThat(apply(new CreateService(ephemeralOnly, meta(Map.of()), true)))
        .as("the accepting node saw ephemeral instances")
        .isEqualTo(new NamingOutcome.ServiceExists(ephemeralOnly));
    assertThat(registry.meta(ephemeralOnly)).isNull();
  }

  @Test
  void deletesAServiceOnlyWhenItExistsAndHasNoInstance() {
    assertThat(apply(new DeleteService(DB, false)))
        .isEqualTo(new NamingOutcome.ServiceNotFound(DB));
    apply(new CreateService(DB, meta(Map.of()), false));
    apply(new PutInstance(DB, persistent(3306, Map.of())));

    assertThat(apply(new DeleteService(DB, false)))
        .isEqualTo(new NamingOutcome.ServiceNotEmpty(DB));
    apply(new RemoveInstance(DB, "10.0.0.1", 3306, Instance.DEFAULT_CLUSTER));
    assertThat(apply(new DeleteService(DB, true)))
        .as("ephemeral instances seen by the accepting node")
        .isEqualTo(new NamingOutcome.ServiceNotEmpty(DB));
    assertThat(registry.meta(DB)).isNotNull();

    assertThat(apply(new DeleteService(DB, false))).isEqualTo(NamingOutcome.APPLIED);
    assertThat(registry.exists(DB)).isFalse();
  }

  @Test
  void keepsHealthCheckKeysAnUpdateDoesNotMentionAndSetsAClustersCheck() {
    assertThat(apply(new UpdateService(DB, meta(Map.of()), false)))
        .isEqualTo(new NamingOutcome.ServiceNotFound(DB));
    apply(new CreateService(DB, meta(Map.of(HealthCheck.SERVICE_KEY, "NONE", "old", "x")), false));
    apply(new SetClusterCheck(DB, "c1", "{\"type\":\"TCP\"}", false));

    apply(new UpdateService(DB, new ServiceMeta(0.1f, Map.of("new", "y"), null), false));

    assertThat(registry.meta(DB).protectThreshold()).isEqualTo(0.1f);
    assertThat(registry.meta(DB).metadata())
        .containsOnly(
            Map.entry("new", "y"),
            Map.entry(HealthCheck.SERVICE_KEY, "NONE"),
            Map.entry(HealthCheck.clusterKey("c1"), "{\"type\":\"TCP\"}"));
  }

  @Test
  void changesAPersistentInstanceOnlyWhenTheServiceHasIt() {
    InstanceChange patch = new InstanceChange(null, false, null, true);
    assertThat(apply(new UpdateInstance(DB, "10.0.0.1", 3306, "DEFAULT", patch, false)))
        .isEqualTo(new NamingOutcome.InstanceNotFound(DB, false));
    apply(new PutInstance(DB, persistent(3306, Map.of("role", "primary"))));
    registry.setPersistentHealth(DB, "10.0.0.1:3306#DEFAULT", false);

    assertThat(apply(new UpdateInstance(DB, "10.0.0.1", 3306, "DEFAULT", patch, false)))
        .isEqualTo(NamingOutcome.APPLIED);
    Instance patched = registry.persistent(DB, "10.0.0.1:3306#DEFAULT");
    assertThat(patched.enabled()).isFalse();
    assertThat(patched.weight()).as("kept by a patch").isEqualTo(2.0);
    assertThat(patched.metadata()).containsEntry("role", "primary");
    assertThat(patched.healthy()).as("health is the checker's, not the log's").isFalse();

    InstanceChange replace = new InstanceChange(5.0, null, null, false);
    apply(new UpdateInstance(DB, "10.0.0.1", 3306, "DEFAULT", replace, false));
    Instance replaced = registry.persistent(DB, "10.0.0.1:3306#DEFAULT");
    assertThat(replaced.weight()).isEqualTo(5.0);
    assertThat(replaced.enabled()).as("defaults for what a replace does not give").isTrue();
    assertThat(replaced.metadata()).isEmpty();

    assertThat(apply(new UpdateInstance(DB, "10.0.0.9", 1, "DEFAULT", replace, false)))
        .isEqualTo(new NamingOutcome.InstanceNotFound(DB, true));
  }

  @Test
  void boundsTheMetadataOfAllPersistentInstancesTogetherAndCountsItAgainAfterASnapshot()
      throws IOException {
    NamingStore bounded = new NamingStore(registry, 20);
    String ten = "0123456789";
    assertThat(
            apply(
                bounded,
                NamingCommand.encode(new PutInstance(DB, persistent(1, Map.of("k", ten))))))
        .isEqualTo(NamingOutcome.APPLIED); // 11 characters
    Object refused =
        apply(bounded, NamingCommand.encode(new PutInstance(DB, persistent(2, Map.of("k", ten)))));
    assertThat(refused).isInstanceOf(NamingOutcome.Rejected.class);
    assertThat(((NamingOutcome.Rejected) refused).reason())
        .contains("persistent instance metadata is full")
        .contains("11 of the 20");
    assertThat(registry.view(DB).instances()).hasSize(1);
    assertThat(apply(bounded, NamingCommand.encode(new PutInstance(DB, persistent(1, Map.of())))))
        .as("shrinking always applies")
        .isEqualTo(NamingOutcome.APPLIED);
    assertThat(
            apply(
                bounded,
                NamingCommand.encode(new PutInstance(DB, persistent(2, Map.of("k", ten))))))
        .isEqualTo(NamingOutcome.APPLIED);

    ByteArrayOutputStream snapshot = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(snapshot)) {
      bounded.writeSnapshot(out);
    }
    NamingStore restored = new NamingStore(new ServiceRegistry(new ManualClock()), 20);
    try (DataInputStream in =
        new DataInputStream(new ByteArrayInputStream(snapshot.toByteArray()))) {
      restored.loadSnapshot(in);
    }
    assertThat(
            apply(
                restored,
                NamingCommand.encode(new PutInstance(DB, persistent(3, Map.of("k", ten))))))
        .as("the restored copy counts what it holds")
        .isInstanceOf(NamingOutcome.Rejected.class);
  }

  @Test
  void restoresServicesAndPersistentInstancesFromItsSnapshot() throws IOException {
    apply(new CreateService(DB, meta(Map.of("a", "1")), false));
    apply(new PutInstance(DB, persistent(3306, Map.of())));
    apply(new PutInstance(DB, persistent(3307, Map.of("role", "replica"))));
    ByteArrayOutputStream snapshot = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(snapshot)) {
      store.writeSnapshot(out);
    }

    ServiceRegistry fresh = new ServiceRegistry(new ManualClock());
    NamingStore restored = new NamingStore(fresh);
    try (DataInputStream in =
        new DataInputStream(new ByteArrayInputStream(snapshot.toByteArray()))) {
      restored.loadSnapshot(in);
    }

    assertThat(fresh.meta(DB)).isEqualTo(registry.meta(DB));
    assertThat(fresh.view(DB).instances())
        .containsExactlyInAnyOrderElementsOf(registry.view(DB).instances());
    assertThat(apply(restored, NamingCommand.encode(new DeleteService(DB, false))))
        .as("the restored copy decides as the original would")
        .isEqualTo(new NamingOutcome.ServiceNotEmpty(DB));
  }

  @Test
  void appliesTheServiceCommandsOfFormatOneUnconditionallyAsBefore() throws IOException {
    apply(new PutInstance(DB, persistent(3306, Map.of())));

    // Format 1 (no header): op 3 put service, op 4 remove service.
    assertThat(
            apply(
                store,
                formatOne((byte) 3, out -> NamingCommand.writeMeta(out, meta(Map.of("a", "1"))))))
        .isEqualTo(NamingOutcome.APPLIED);
    assertThat(registry.meta(DB).metadata()).containsEntry("a", "1");
    assertThat(apply(store, formatOne((byte) 4, out -> {}))).isEqualTo(NamingOutcome.APPLIED);
    assertThat(registry.meta(DB)).as("removed although an instance remains").isNull();
    assertThat(registry.instanceCount(DB)).isEqualTo(1);
  }

  @Test
  void refusesAnUnreadableCommandAndChangesNothing() {
    Object outcome = apply(store, new byte[] {0, 2, 42});
    assertThat(outcome).isInstanceOf(NamingOutcome.Rejected.class);
    assertThat(registry.serviceCount()).isZero();
  }

  private interface Body {
    void write(DataOutputStream out) throws IOException;
  }

  private static byte[] formatOne(byte op, Body body) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(op);
      LengthPrefixedString.write(out, DB.namespace());
      LengthPrefixedString.write(out, DB.group());
      LengthPrefixedString.write(out, DB.name());
      body.write(out);
    }
    return bytes.toByteArray();
  }
}
