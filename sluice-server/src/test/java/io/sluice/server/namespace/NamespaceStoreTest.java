package io.sluice.server.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.namespace.NamespaceCommand.Create;
import io.sluice.server.namespace.NamespaceCommand.Delete;
import io.sluice.server.namespace.NamespaceCommand.Update;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class NamespaceStoreTest {
  private final NamespaceStore store = new NamespaceStore();
  private long index;

  private Object apply(NamespaceCommand command) {
    return store.apply(ByteBuffer.wrap(NamespaceCommand.encode(command)), ++index);
  }

  @Test
  void createsUpdatesAndDeletesNamespacesKeepingCreationOrder() {
    assertThat(apply(new Create("dev", "Dev", "for devs", 1L)))
        .isEqualTo(new NamespaceOutcome.Created(new Namespace("dev", "Dev", "for devs", 1L)));
    apply(new Create("prod", "Prod", null, 2L));
    apply(new Create("test", "Test", null, 3L));

    assertThat(apply(new Update("dev", "Development", "renamed")))
        .isEqualTo(
            new NamespaceOutcome.Updated(new Namespace("dev", "Development", "renamed", 1L)));
    assertThat(apply(new Delete("prod"))).isEqualTo(new NamespaceOutcome.Deleted(true));

    assertThat(store.all()).extracting(Namespace::id).containsExactly("dev", "test");
    assertThat(store.get("dev").name()).isEqualTo("Development");
  }

  @Test
  void refusesADuplicateAndReportsWhatIsMissingWithoutChangingAnything() {
    apply(new Create("dev", "Dev", null, 1L));

    assertThat(apply(new Create("dev", "Other", null, 2L)))
        .isEqualTo(new NamespaceOutcome.AlreadyExists("dev"));
    assertThat(apply(new Update("nope", "X", null)))
        .isEqualTo(new NamespaceOutcome.NotFound("nope"));
    assertThat(apply(new Delete("nope"))).isEqualTo(new NamespaceOutcome.Deleted(false));
    assertThat(store.all()).containsExactly(new Namespace("dev", "Dev", null, 1L));
  }

  @Test
  void rejectsAnUnreadableCommandAndCarriesOn() {
    Object outcome = store.apply(ByteBuffer.wrap(new byte[] {42, 1, 2}), 1);

    assertThat(outcome).isInstanceOf(NamespaceOutcome.Rejected.class);
    assertThat(apply(new Create("dev", "Dev", null, 1L)))
        .isInstanceOf(NamespaceOutcome.Created.class);
  }

  @Test
  void refusesMoreNamespacesThanTheBound() {
    NamespaceStore small = new NamespaceStore(3);
    for (int i = 0; i < 4; i++) {
      Object outcome =
          small.apply(
              ByteBuffer.wrap(NamespaceCommand.encode(new Create("ns-" + i, "N", null, i))), i);
      assertThat(outcome)
          .isInstanceOf(i < 3 ? NamespaceOutcome.Created.class : NamespaceOutcome.Rejected.class);
    }

    assertThat(small.size()).isEqualTo(3);
  }

  @Test
  void restoresEverythingFromItsSnapshot() throws Exception {
    apply(new Create("dev", "Dev", "déscription ✓", 1L));
    apply(new Create("prod", "Prod", null, 2L));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      store.writeSnapshot(out);
    }

    NamespaceStore restored = new NamespaceStore();
    restored.loadSnapshot(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));

    assertThat(restored.all()).containsExactlyElementsOf(store.all());
  }
}
