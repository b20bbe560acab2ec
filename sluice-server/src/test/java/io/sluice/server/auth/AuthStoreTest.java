package io.sluice.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.feature.Fault;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class AuthStoreTest {
  private final AuthStore store = new AuthStore();
  private long index;

  private Object apply(AuthCommand command) {
    return store.apply(ByteBuffer.wrap(AuthCommand.encode(command)), ++index);
  }

  @Test
  void theFirstKeyWinsAndNeverChanges() {
    assertThat(apply(new AuthCommand.InitKey("AAAA"))).isInstanceOf(AuthOutcome.Applied.class);
    assertThat(apply(new AuthCommand.InitKey("BBBB")))
        .isInstanceOf(AuthOutcome.AlreadyExists.class);
    assertThat(store.view().key).containsExactly(0, 0, 0);
  }

  @Test
  void theAdminIsBootstrappedOnceAndCannotBeDeletedOrShared() {
    assertThat(apply(new AuthCommand.BootstrapAdmin("h1"))).isInstanceOf(AuthOutcome.Applied.class);
    assertThat(apply(new AuthCommand.BootstrapAdmin("h2")))
        .isInstanceOf(AuthOutcome.AlreadyExists.class);
    apply(new AuthCommand.CreateUser("alice", "h"));

    assertThat(apply(new AuthCommand.DeleteUser("nacos")))
        .isEqualTo(new AuthOutcome.Rejected(Fault.INVALID, "the admin user cannot be deleted"));
    assertThat(apply(new AuthCommand.AddRole("ROLE_ADMIN", "alice")))
        .isInstanceOf(AuthOutcome.Rejected.class);
    assertThat(apply(new AuthCommand.DeleteRole("ROLE_ADMIN", "nacos")))
        .isInstanceOf(AuthOutcome.Rejected.class);
    assertThat(store.view().hashes.get("nacos")).isEqualTo("h1");
    assertThat(store.view().isAdmin("nacos")).isTrue();
    assertThat(store.view().isAdmin("alice")).isFalse();
  }

  @Test
  void rolesNeedAUserAndPermissionsARole() {
    assertThat(apply(new AuthCommand.AddRole("dev", "ghost")))
        .isInstanceOf(AuthOutcome.NotFound.class);
    assertThat(apply(new AuthCommand.AddPermission("dev", "dev:*:*", "r")))
        .isInstanceOf(AuthOutcome.NotFound.class);
  }

  @Test
  void permissionsMatchNamespaceGroupAndNameWithWildcards() {
    apply(new AuthCommand.CreateUser("alice", "h"));
    apply(new AuthCommand.AddRole("dev", "alice"));
    apply(new AuthCommand.AddPermission("dev", "dev", "r"));
    apply(new AuthCommand.AddPermission("dev", "prod:G1:config/app.*", "rw"));
    apply(new AuthCommand.AddPermission("dev", ":*:naming/*", "w"));
    AuthStore.View view = store.view();

    assertThat(view.allows("alice", "dev:ANY:config/x", Action.READ)).isTrue();
    assertThat(view.allows("alice", "dev:ANY:config/x", Action.WRITE)).isFalse();
    assertThat(view.allows("alice", "prod:G1:config/app.yaml", Action.WRITE)).isTrue();
    assertThat(view.allows("alice", "prod:G2:config/app.yaml", Action.READ)).isFalse();
    assertThat(view.allows("alice", "public:DEFAULT_GROUP:naming/svc", Action.WRITE)).isTrue();
    assertThat(view.allows("alice", "devx:ANY:config/x", Action.READ)).isFalse();
    assertThat(view.allows("bob", "dev:ANY:config/x", Action.READ)).isFalse();
  }

  @Test
  void deletingAUserTakesItsRolesAndTheirOrphanedPermissions() {
    apply(new AuthCommand.CreateUser("alice", "h"));
    apply(new AuthCommand.AddRole("dev", "alice"));
    apply(new AuthCommand.AddPermission("dev", "dev", "rw"));

    apply(new AuthCommand.DeleteUser("alice"));
    apply(new AuthCommand.CreateUser("alice", "h2"));

    assertThat(store.view().rolesOf("alice")).isEmpty();
    assertThat(store.view().permissions).isEmpty();
  }

  @Test
  void aSnapshotRestoresEverything() throws Exception {
    apply(new AuthCommand.InitKey("AQID"));
    apply(new AuthCommand.BootstrapAdmin("h1"));
    apply(new AuthCommand.CreateUser("alice", "h"));
    apply(new AuthCommand.AddRole("dev", "alice"));
    apply(new AuthCommand.AddPermission("dev", "dev:*:*", "rw"));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    store.writeSnapshot(new DataOutputStream(bytes));

    AuthStore restored = new AuthStore();
    restored.loadSnapshot(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));

    assertThat(restored.view().key).containsExactly(1, 2, 3);
    assertThat(restored.view().hashes).isEqualTo(store.view().hashes);
    assertThat(restored.view().bindings).isEqualTo(store.view().bindings);
    assertThat(restored.view().permissions).isEqualTo(store.view().permissions);
    assertThat(restored.view().allows("alice", "dev:G:config/x", Action.WRITE)).isTrue();
  }

  @Test
  void anUnreadableCommandIsRefusedAndChangesNothing() {
    Object outcome = store.apply(ByteBuffer.wrap(new byte[] {0, 2, 99}), 1);
    assertThat(outcome).isInstanceOf(AuthOutcome.Rejected.class);
    assertThat(((AuthOutcome.Rejected) outcome).fault()).isEqualTo(Fault.INTERNAL);
  }
}
