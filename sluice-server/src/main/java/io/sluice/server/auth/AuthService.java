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
import io.sluice.server.clock.ServerClock;
import io.sluice.server.feature.Fault;
import io.sluice.server.feature.ReplicatedWrites;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;
import org.slf4j.MarkerFactory;

/**
 * Auth's one door: who a token belongs to and what it may do (in memory, CPU only, safe on an event
 * loop), logins (password hashing, on the given executor, never an event loop), and changes to
 * users, roles and permissions, validated here and replicated; whether a change applies is decided
 * in apply. {@link #enabled()} says whether the server checks requests at all.
 *
 * <p>Rules: user and role names of letters, digits and {@code _ - . @}, at most {@value
 * #MAX_NAME_LENGTH} characters; passwords of {@value #MIN_PASSWORD_LENGTH} to {@value
 * #MAX_PASSWORD_LENGTH} characters; actions {@code r}, {@code w}, {@code rw}; resources of at most
 * {@value #MAX_RESOURCE_LENGTH} characters.
 */
public final class AuthService {
  private static final Logger log = LoggerFactory.getLogger(AuthService.class);

  /**
   * Keeps a line out of the server's log file (sluice-server's logging honours it): the generated
   * password is shown on the console once, never stored in a file.
   */
  private static final Marker CONSOLE_ONLY = MarkerFactory.getMarker("CONSOLE_ONLY");

  public static final String ADMIN_USER = AuthStore.ADMIN_USER;
  public static final String ADMIN_ROLE = AuthStore.ADMIN_ROLE;
  static final int MAX_NAME_LENGTH = 64;
  static final int MIN_PASSWORD_LENGTH = 8;
  static final int MAX_PASSWORD_LENGTH = 256;
  static final int MAX_RESOURCE_LENGTH = 512;
  private static final int KEY_BYTES = 32;
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.@-]+");

  private final AuthStore store;
  private final ReplicatedWrites writes;
  private final ServerClock clock;
  private final Executor hashing;
  private final SecureRandom random;
  private final PasswordHasher hasher;
  private final boolean enabled;
  private final long tokenTtlSeconds;

  /** The admin password this process generated, if it needed one; see {@link #bootstrap}. */
  private String generatedPassword;

  /** Whether this process has submitted the admin's creation (its outcome may have been lost). */
  private volatile boolean adminSubmitted;

  private final java.util.concurrent.atomic.AtomicBoolean generatedShown =
      new java.util.concurrent.atomic.AtomicBoolean();

  AuthService(
      AuthStore store,
      ReplicatedWrites writes,
      ServerClock clock,
      Executor hashing,
      SecureRandom random,
      PasswordHasher hasher,
      boolean enabled,
      long tokenTtlSeconds) {
    this.store = store;
    this.writes = writes;
    this.clock = clock;
    this.hashing = hashing;
    this.random = random;
    this.hasher = hasher;
    this.enabled = enabled;
    this.tokenTtlSeconds = tokenTtlSeconds;
  }

  /** Whether requests are checked; when false every request is let through unchecked. */
  public boolean enabled() {
    return enabled;
  }

  /** Whether tokens can be issued and checked: the installation's key is in the store. */
  public boolean hasKey() {
    return store.view().key != null;
  }

  public long tokenTtlSeconds() {
    return tokenTtlSeconds;
  }

  /** A login that succeeded. */
  public record Login(
      String accessToken, long tokenTtlSeconds, boolean globalAdmin, String username) {}

  /**
   * Checks a password on the hashing executor and issues a token; fails with {@link
   * Fault#UNAUTHENTICATED} for a wrong name or password (the same message and about the same time
   * for both), {@link Fault#UNAVAILABLE} before the key exists.
   */
  public CompletableFuture<Login> login(String username, String password) {
    if (username == null || password == null || password.length() > MAX_PASSWORD_LENGTH) {
      return CompletableFuture.failedFuture(
          AuthException.unauthenticated("unknown user or wrong password"));
    }
    return onHashing(
        () -> {
          AuthStore.View view = store.view();
          if (view.key == null) {
            throw new AuthException(
                Fault.UNAVAILABLE, "auth is starting: the token key is not ready yet", null);
          }
          String hash = view.hashes.get(username);
          if (hash == null) {
            hasher.spendVerificationTime(password);
            throw AuthException.unauthenticated("unknown user or wrong password");
          }
          if (!PasswordHasher.matches(password, hash)) {
            throw AuthException.unauthenticated("unknown user or wrong password");
          }
          long expires = clock.currentTimeMillis() / 1000 + tokenTtlSeconds;
          return new Login(
              TokenSigner.sign(view.key, username, expires),
              tokenTtlSeconds,
              view.isAdmin(username),
              username);
        });
  }

  /**
   * Who a token belongs to; fails with {@link Fault#UNAUTHENTICATED} when it is missing, forged,
   * expired or names a deleted user. CPU only.
   */
  public Identity identify(String token) {
    if (token == null || token.isBlank()) {
      throw AuthException.unauthenticated("this server requires a login: send an accessToken");
    }
    AuthStore.View view = store.view();
    if (view.key == null) {
      throw new AuthException(Fault.UNAVAILABLE, "auth is starting", null);
    }
    TokenSigner.Claims claims =
        TokenSigner.verify(view.key, token.trim(), clock.currentTimeMillis() / 1000);
    if (claims == null) {
      throw AuthException.unauthenticated("the access token is invalid or expired: log in again");
    }
    if (!view.hashes.containsKey(claims.subject())) {
      throw AuthException.unauthenticated("the token's user no longer exists");
    }
    return new Identity(claims.subject(), view.isAdmin(claims.subject()));
  }

  /**
   * Fails with {@link Fault#FORBIDDEN} unless {@code who} may do {@code action} on the resource
   * {@code namespace:group:type/name}. The public namespace is {@code public} however spelled.
   */
  public void authorize(
      Identity who, String namespace, String group, String type, String name, Action action) {
    String ns = namespace == null || namespace.isBlank() ? "public" : namespace.trim();
    String resource =
        ns
            + ':'
            + (group == null || group.isBlank() ? "DEFAULT_GROUP" : group)
            + ':'
            + type
            + '/'
            + (name == null ? "" : name);
    if (!store.view().allows(who.username(), resource, action)) {
      throw AuthException.forbidden(
          "user "
              + who.username()
              + " may not "
              + action.name().toLowerCase(Locale.ROOT)
              + " "
              + resource);
    }
  }

  /** Fails with {@link Fault#FORBIDDEN} unless {@code who} holds the admin role. */
  public void requireAdmin(Identity who) {
    if (!who.admin()) {
      throw AuthException.forbidden("only the admin may do this; " + who.username() + " is not");
    }
  }

  // --- bootstrap ---

  /**
   * Makes sure the token key and the admin user exist; once the store is ready, at every start with
   * auth on. With no admin yet, it is created with {@code initialPassword}, or a generated one that
   * is logged once. Completes when both exist.
   *
   * <p>May be called again after a failure (in a cluster a write can meet an election and fail with
   * its outcome unknown): every step keeps what exists, the generated password is generated once
   * per process, and if an earlier call created the admin without learning it, the password is
   * still shown.
   */
  public CompletableFuture<Void> bootstrap(String initialPassword) {
    byte[] key = new byte[KEY_BYTES];
    random.nextBytes(key);
    CompletableFuture<AuthOutcome> keyed =
        store.view().key != null
            ? CompletableFuture.completedFuture(new AuthOutcome.AlreadyExists("token key"))
            : submit(new InitKey(Base64.getEncoder().encodeToString(key)));
    return keyed.thenCompose(
        ignored -> {
          boolean generated = initialPassword == null || initialPassword.isEmpty();
          String password = generated ? generatedPassword() : initialPassword;
          if (store.view().hashes.containsKey(ADMIN_USER)) {
            // Only an earlier attempt of this process can have created it with this password.
            return generated && adminSubmitted
                ? showIfCreatedHere(password)
                : CompletableFuture.completedFuture(null);
          }
          return onHashing(() -> hasher.hash(password))
              .thenCompose(
                  hash -> {
                    adminSubmitted = true;
                    return submit(new BootstrapAdmin(hash));
                  })
              .thenCompose(
                  outcome -> {
                    if (!(outcome instanceof AuthOutcome.Applied)) {
                      return generated
                          ? showIfCreatedHere(password)
                          : CompletableFuture.completedFuture(null);
                    }
                    if (generated) {
                      showGenerated(password);
                    } else {
                      log.info(
                          "Created the admin user '{}' from SLUICE_ADMIN_PASSWORD", ADMIN_USER);
                    }
                    return CompletableFuture.completedFuture(null);
                  });
        });
  }

  /** This process's generated admin password, the same for every bootstrap attempt. */
  private synchronized String generatedPassword() {
    if (generatedPassword == null) {
      generatedPassword = generatePassword();
    }
    return generatedPassword;
  }

  /** Shows the generated password if the admin's stored hash is of it (an earlier attempt's). */
  private CompletableFuture<Void> showIfCreatedHere(String password) {
    String hash = store.view().hashes.get(ADMIN_USER);
    if (hash == null || generatedShown.get()) {
      return CompletableFuture.completedFuture(null);
    }
    return onHashing(() -> PasswordHasher.matches(password, hash))
        .thenAccept(
            ours -> {
              if (ours) {
                showGenerated(password);
              }
            });
  }

  private void showGenerated(String password) {
    if (generatedShown.compareAndSet(false, true)) {
      log.warn(
          CONSOLE_ONLY,
          "Created the admin user '{}' with the generated password: {}  (shown this once; set"
              + " SLUICE_ADMIN_PASSWORD before the first start to choose it, change it with PUT"
              + " /nacos/v1/auth/users)",
          ADMIN_USER,
          password);
    }
  }

  private String generatePassword() {
    byte[] bytes = new byte[18];
    random.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  // --- users, roles, permissions ---

  /** A page of user names, in creation order. */
  public List<String> users() {
    return List.copyOf(store.view().hashes.keySet());
  }

  /** Users whose name contains {@code fragment}. */
  public List<String> searchUsers(String fragment) {
    List<String> found = new ArrayList<>();
    for (String user : store.view().hashes.keySet()) {
      if (fragment == null || user.contains(fragment)) {
        found.add(user);
      }
    }
    return found;
  }

  /** Every (role, user) binding, in creation order. */
  public List<RoleBinding> roles() {
    List<RoleBinding> all = new ArrayList<>();
    for (AuthStore.Binding b : store.view().bindings) {
      all.add(new RoleBinding(b.role(), b.username()));
    }
    return all;
  }

  public record RoleBinding(String role, String username) {}

  public List<Permission> permissions() {
    return List.copyOf(store.view().permissions);
  }

  public CompletableFuture<AuthOutcome> createUser(String username, String password) {
    return withHash(username, password, hash -> new CreateUser(username, hash));
  }

  public CompletableFuture<AuthOutcome> setPassword(String username, String password) {
    return withHash(username, password, hash -> new SetPassword(username, hash));
  }

  /** Checks the name and password, hashes it off the event loop, and submits the command. */
  private CompletableFuture<AuthOutcome> withHash(
      String username, String password, Function<String, AuthCommand> command) {
    try {
      checkName("username", username);
      checkPassword(password);
    } catch (AuthException invalid) {
      return CompletableFuture.failedFuture(invalid);
    }
    return onHashing(() -> hasher.hash(password)).thenCompose(hash -> submit(command.apply(hash)));
  }

  public CompletableFuture<AuthOutcome> deleteUser(String username) {
    return checked(() -> checkName("username", username), new DeleteUser(username));
  }

  public CompletableFuture<AuthOutcome> addRole(String role, String username) {
    return checked(
        () -> {
          checkName("role", role);
          checkName("username", username);
        },
        new AddRole(role, username));
  }

  /**
   * @param username null or blank to take the role from every user
   */
  public CompletableFuture<AuthOutcome> deleteRole(String role, String username) {
    String user = username == null || username.isBlank() ? null : username;
    return checked(() -> checkName("role", role), new DeleteRole(role, user));
  }

  public CompletableFuture<AuthOutcome> addPermission(String role, String resource, String action) {
    return checked(
        () -> checkPermission(role, resource, action), new AddPermission(role, resource, action));
  }

  public CompletableFuture<AuthOutcome> deletePermission(
      String role, String resource, String action) {
    return checked(
        () -> checkPermission(role, resource, action),
        new DeletePermission(role, resource, action));
  }

  private CompletableFuture<AuthOutcome> checked(Runnable check, AuthCommand command) {
    try {
      check.run();
    } catch (AuthException invalid) {
      return CompletableFuture.failedFuture(invalid);
    }
    return submit(command);
  }

  /** Runs slow work on the hashing executor; a full queue fails with {@link Fault#OVERLOADED}. */
  private <T> CompletableFuture<T> onHashing(Supplier<T> work) {
    try {
      return CompletableFuture.supplyAsync(work, hashing);
    } catch (RejectedExecutionException full) {
      return CompletableFuture.failedFuture(
          new AuthException(
              Fault.OVERLOADED, "too many logins and password changes at once; retry", null));
    }
  }

  private CompletableFuture<AuthOutcome> submit(AuthCommand command) {
    return writes.submit(
        AuthStore.NAME, AuthCommand.encode(command), AuthOutcome.class, AuthException::new);
  }

  private static void checkName(String what, String name) {
    if (name == null || name.isBlank()) {
      throw AuthException.invalid(what + " must not be blank");
    }
    if (name.length() > MAX_NAME_LENGTH || !NAME.matcher(name).matches()) {
      throw AuthException.invalid(
          what + " must be at most " + MAX_NAME_LENGTH + " letters, digits, '_', '-', '.' or '@'");
    }
  }

  private static void checkPassword(String password) {
    if (password == null
        || password.length() < MIN_PASSWORD_LENGTH
        || password.length() > MAX_PASSWORD_LENGTH) {
      throw AuthException.invalid(
          "password must be " + MIN_PASSWORD_LENGTH + " to " + MAX_PASSWORD_LENGTH + " characters");
    }
  }

  private static void checkPermission(String role, String resource, String action) {
    checkName("role", role);
    if (resource == null || resource.isBlank() || resource.length() > MAX_RESOURCE_LENGTH) {
      throw AuthException.invalid(
          "resource must be namespace:group:type/name (or a namespace id), at most "
              + MAX_RESOURCE_LENGTH
              + " characters");
    }
    if (!"r".equals(action) && !"w".equals(action) && !"rw".equals(action)) {
      throw AuthException.invalid("action must be r, w or rw");
    }
  }
}
