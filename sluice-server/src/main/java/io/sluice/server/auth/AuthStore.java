package io.sluice.server.auth;

import io.sluice.server.auth.AuthCommand.AddPermission;
import io.sluice.server.auth.AuthCommand.AddRole;
import io.sluice.server.auth.AuthCommand.BootstrapAdmin;
import io.sluice.server.auth.AuthCommand.CreateUser;
import io.sluice.server.auth.AuthCommand.DeletePermission;
import io.sluice.server.auth.AuthCommand.DeleteRole;
import io.sluice.server.auth.AuthCommand.DeleteUser;
import io.sluice.server.auth.AuthCommand.InitKey;
import io.sluice.server.auth.AuthCommand.SetPassword;
import io.sluice.server.feature.Fault;
import io.sluice.server.replication.ReplicatedState;
import io.sluice.server.replication.UnknownFormatException;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Users, their roles, the roles' permissions and the token key, changed only by applying replicated
 * {@link AuthCommand}s.
 *
 * <p>Invariants, decided in apply from the state and the command alone so every replica agrees: the
 * key, once set, never changes; the admin role {@value #ADMIN_ROLE} is held by the bootstrap admin
 * only and is never granted, taken or deleted through the API; a role is bound only to an existing
 * user and a permission only to an existing role; deleting a user takes its roles, and a role's
 * last binding takes its permissions; at most {@value #MAX_ENTRIES} users, bindings and permissions
 * each.
 *
 * <p>Concurrency: apply and the snapshot methods run on the replicator's single apply thread;
 * readers on any thread read one immutable {@link View}, published through a volatile field and
 * rebuilt (with its permissions compiled) on each change, which is rare.
 *
 * <p>Snapshot format 1: {@code int format}, the key ({@code int length + bytes}, -1 for none), then
 * {@code int count} and entries for users (name, hash), bindings (role, user) and permissions
 * (role, resource, action), strings as {@code int length + UTF-8}.
 */
final class AuthStore implements ReplicatedState {
  static final String NAME = "auth";
  static final String ADMIN_ROLE = "ROLE_ADMIN";
  static final String ADMIN_USER = "nacos";
  static final int MAX_ENTRIES = 10_000;
  private static final int SNAPSHOT_FORMAT = 1;
  private static final Logger log = LoggerFactory.getLogger(AuthStore.class);

  record Binding(String role, String username) {}

  /** One consistent state to read from; never changed once published. */
  static final class View {
    final byte[] key;
    final Map<String, String> hashes;
    final Set<Binding> bindings;
    final Set<Permission> permissions;
    private final Map<String, Set<String>> rolesByUser = new HashMap<>();
    private final Map<String, List<Compiled>> compiledByRole = new HashMap<>();

    record Compiled(Pattern resource, String action) {}

    View(byte[] key, Map<String, String> hashes, Set<Binding> bindings, Set<Permission> perms) {
      this.key = key;
      this.hashes = Collections.unmodifiableMap(hashes);
      this.bindings = Collections.unmodifiableSet(bindings);
      this.permissions = Collections.unmodifiableSet(perms);
      for (Binding b : bindings) {
        rolesByUser.computeIfAbsent(b.username(), u -> new LinkedHashSet<>()).add(b.role());
      }
      for (Permission p : perms) {
        compiledByRole
            .computeIfAbsent(p.role(), r -> new ArrayList<>())
            .add(new Compiled(p.compile(), p.action()));
      }
    }

    Set<String> rolesOf(String username) {
      return rolesByUser.getOrDefault(username, Set.of());
    }

    boolean isAdmin(String username) {
      return rolesOf(username).contains(ADMIN_ROLE);
    }

    boolean roleExists(String role) {
      for (Binding b : bindings) {
        if (b.role().equals(role)) {
          return true;
        }
      }
      return false;
    }

    /** Whether any of the user's roles allows {@code action} on {@code resource}. */
    boolean allows(String username, String resource, Action action) {
      Set<String> roles = rolesOf(username);
      if (roles.contains(ADMIN_ROLE)) {
        return true;
      }
      for (String role : roles) {
        for (Compiled permission : compiledByRole.getOrDefault(role, List.of())) {
          if (action.allowedBy(permission.action())
              && permission.resource().matcher(resource).matches()) {
            return true;
          }
        }
      }
      return false;
    }
  }

  private volatile View view =
      new View(null, new LinkedHashMap<>(), new LinkedHashSet<>(), new LinkedHashSet<>());

  @Override
  public String name() {
    return NAME;
  }

  View view() {
    return view;
  }

  @Override
  public Object apply(ByteBuffer command, long logIndex) {
    AuthCommand decoded;
    try {
      decoded = AuthCommand.decode(command);
    } catch (UnknownFormatException newer) {
      throw newer; // stops replication here: skipping the command would lose it
    } catch (IOException | RuntimeException e) {
      log.error("unreadable auth command at log index {}", logIndex, e);
      return new AuthOutcome.Rejected(Fault.INTERNAL, "unreadable command: " + e.getMessage());
    }
    View current = view;
    byte[] key = current.key;
    Map<String, String> hashes = new LinkedHashMap<>(current.hashes);
    Set<Binding> bindings = new LinkedHashSet<>(current.bindings);
    Set<Permission> permissions = new LinkedHashSet<>(current.permissions);
    if (decoded instanceof InitKey init) {
      if (key != null) {
        return new AuthOutcome.AlreadyExists("token key");
      }
      key = Base64.getDecoder().decode(init.keyBase64());
    } else if (decoded instanceof BootstrapAdmin admin) {
      if (hashes.containsKey(ADMIN_USER)
          || bindings.stream().anyMatch(b -> isAdminRole(b.role()))) {
        return new AuthOutcome.AlreadyExists("admin user");
      }
      hashes.put(ADMIN_USER, admin.passwordHash());
      bindings.add(new Binding(ADMIN_ROLE, ADMIN_USER));
    } else if (decoded instanceof CreateUser create) {
      if (hashes.containsKey(create.username())) {
        return new AuthOutcome.AlreadyExists("user " + create.username());
      }
      if (hashes.size() >= MAX_ENTRIES) {
        return full("users");
      }
      hashes.put(create.username(), create.passwordHash());
    } else if (decoded instanceof SetPassword set) {
      if (!hashes.containsKey(set.username())) {
        return new AuthOutcome.NotFound("user " + set.username());
      }
      hashes.put(set.username(), set.passwordHash());
    } else if (decoded instanceof DeleteUser delete) {
      if (!hashes.containsKey(delete.username())) {
        return new AuthOutcome.NotFound("user " + delete.username());
      }
      if (current.isAdmin(delete.username())) {
        return new AuthOutcome.Rejected(Fault.INVALID, "the admin user cannot be deleted");
      }
      hashes.remove(delete.username());
      bindings.removeIf(b -> b.username().equals(delete.username()));
      dropOrphanPermissions(bindings, permissions);
    } else if (decoded instanceof AddRole add) {
      if (isAdminRole(add.role())) {
        return adminRole();
      }
      if (!hashes.containsKey(add.username())) {
        return new AuthOutcome.NotFound("user " + add.username());
      }
      if (bindings.size() >= MAX_ENTRIES) {
        return full("role bindings");
      }
      if (!bindings.add(new Binding(add.role(), add.username()))) {
        return new AuthOutcome.AlreadyExists("role " + add.role() + " of " + add.username());
      }
    } else if (decoded instanceof DeleteRole delete) {
      if (isAdminRole(delete.role())) {
        return adminRole();
      }
      boolean removed =
          bindings.removeIf(
              b ->
                  b.role().equals(delete.role())
                      && (delete.username() == null || b.username().equals(delete.username())));
      if (!removed) {
        return new AuthOutcome.NotFound("role " + delete.role());
      }
      dropOrphanPermissions(bindings, permissions);
    } else if (decoded instanceof AddPermission add) {
      if (isAdminRole(add.role())) {
        return adminRole();
      }
      if (!current.roleExists(add.role())) {
        return new AuthOutcome.NotFound("role " + add.role());
      }
      if (permissions.size() >= MAX_ENTRIES) {
        return full("permissions");
      }
      if (!permissions.add(new Permission(add.role(), add.resource(), add.action()))) {
        return new AuthOutcome.AlreadyExists("permission");
      }
    } else {
      DeletePermission delete = (DeletePermission) decoded;
      if (!permissions.remove(new Permission(delete.role(), delete.resource(), delete.action()))) {
        return new AuthOutcome.NotFound("permission");
      }
    }
    view = new View(key, hashes, bindings, permissions);
    return new AuthOutcome.Applied();
  }

  private static boolean isAdminRole(String role) {
    return ADMIN_ROLE.equals(role);
  }

  private static AuthOutcome adminRole() {
    return new AuthOutcome.Rejected(
        Fault.INVALID, "role '" + ADMIN_ROLE + "' belongs to the admin user and cannot be changed");
  }

  private static AuthOutcome full(String what) {
    return new AuthOutcome.Rejected(
        Fault.INVALID, "there are " + MAX_ENTRIES + " " + what + " already; delete some first");
  }

  /** A permission whose role no user holds any more goes with it, as in Nacos. */
  private static void dropOrphanPermissions(Set<Binding> bindings, Set<Permission> permissions) {
    Set<String> roles = new LinkedHashSet<>();
    bindings.forEach(b -> roles.add(b.role()));
    permissions.removeIf(p -> !roles.contains(p.role()));
  }

  @Override
  public void writeSnapshot(DataOutputStream out) throws IOException {
    View current = view;
    out.writeInt(SNAPSHOT_FORMAT);
    if (current.key == null) {
      out.writeInt(-1);
    } else {
      out.writeInt(current.key.length);
      out.write(current.key);
    }
    out.writeInt(current.hashes.size());
    for (Map.Entry<String, String> user : current.hashes.entrySet()) {
      AuthCommand.writeString(out, user.getKey());
      AuthCommand.writeString(out, user.getValue());
    }
    out.writeInt(current.bindings.size());
    for (Binding binding : current.bindings) {
      AuthCommand.writeString(out, binding.role());
      AuthCommand.writeString(out, binding.username());
    }
    out.writeInt(current.permissions.size());
    for (Permission permission : current.permissions) {
      AuthCommand.writeString(out, permission.role());
      AuthCommand.writeString(out, permission.resource());
      AuthCommand.writeString(out, permission.action());
    }
  }

  @Override
  public void loadSnapshot(DataInputStream in) throws IOException {
    int format = in.readInt();
    if (format != SNAPSHOT_FORMAT) {
      throw new IOException("unknown auth snapshot format " + format);
    }
    int keyLength = in.readInt();
    byte[] key = null;
    if (keyLength >= 0) {
      if (keyLength > 1024) {
        throw new IOException("auth snapshot claims a key of " + keyLength + " bytes");
      }
      key = in.readNBytes(keyLength);
    }
    Map<String, String> hashes = new LinkedHashMap<>();
    for (int i = count(in); i > 0; i--) {
      hashes.put(AuthCommand.read(in), AuthCommand.read(in));
    }
    Set<Binding> bindings = new LinkedHashSet<>();
    for (int i = count(in); i > 0; i--) {
      bindings.add(new Binding(AuthCommand.read(in), AuthCommand.read(in)));
    }
    Set<Permission> permissions = new LinkedHashSet<>();
    for (int i = count(in); i > 0; i--) {
      permissions.add(
          new Permission(AuthCommand.read(in), AuthCommand.read(in), AuthCommand.read(in)));
    }
    view = new View(key, hashes, bindings, permissions);
  }

  private static int count(DataInputStream in) throws IOException {
    int count = in.readInt();
    if (count < 0 || count > MAX_ENTRIES) {
      throw new IOException("auth snapshot claims " + count + " entries");
    }
    return count;
  }
}
