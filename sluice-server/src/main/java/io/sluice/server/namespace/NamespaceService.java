package io.sluice.server.namespace;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.feature.ReplicatedWrites;
import io.sluice.server.namespace.NamespaceCommand.Create;
import io.sluice.server.namespace.NamespaceCommand.Delete;
import io.sluice.server.namespace.NamespaceCommand.Update;
import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Namespaces' one door: reads from memory, changes validated as Nacos validates them and then
 * replicated, acknowledged once applied. Whether a change applies (the id exists or not, the store
 * is full) is decided in apply; {@link NamespaceOutcome} says what happened, {@link
 * NamespaceException} why a request was refused.
 *
 * <p>Rules: an id of letters, digits, {@code _} and {@code -}, at most {@value #MAX_ID_LENGTH}
 * characters (a random UUID when none is given); a non-blank name without {@code @#$%^&*}; a
 * description of at most {@value #MAX_DESCRIPTION_LENGTH} characters. The public namespace ({@code
 * ""} or {@code "public"}) always exists and can be neither created, changed nor deleted.
 */
public final class NamespaceService {
  /** How the public namespace's id is spelled by 3.x clients; 2.x clients say {@code ""}. */
  public static final String PUBLIC_NAME = "public";

  static final int MAX_ID_LENGTH = 128;
  static final int MAX_NAME_LENGTH = 128;
  static final int MAX_DESCRIPTION_LENGTH = 256;
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]+");
  private static final String FORBIDDEN_NAME_CHARACTERS = "@#$%^&*";

  private final NamespaceStore store;
  private final ReplicatedWrites writes;
  private final ServerClock clock;
  private final Supplier<String> newIds;

  /**
   * @param newIds the id of a namespace created without one (Nacos uses a random UUID)
   */
  NamespaceService(
      NamespaceStore store, ReplicatedWrites writes, ServerClock clock, Supplier<String> newIds) {
    this.store = store;
    this.writes = writes;
    this.clock = clock;
    this.newIds = newIds;
  }

  /** True for the spellings of the public namespace: null, blank and {@code "public"}. */
  public static boolean isPublic(String id) {
    return id == null || id.isBlank() || PUBLIC_NAME.equals(id.trim());
  }

  /** Every created namespace, in creation order (the public one is not stored). */
  public Collection<Namespace> all() {
    return readable().all();
  }

  /** The stored namespace of that id, or null (also for the public one, which is not stored). */
  public Namespace find(String id) {
    return isPublic(id) ? null : readable().get(id.trim());
  }

  /** True when the id names the public namespace or a stored one. */
  public boolean exists(String id) {
    return isPublic(id) || readable().get(id.trim()) != null;
  }

  /**
   * Creates a namespace; with a blank id, one is generated. Invalid input fails the future with
   * {@link NamespaceException} before anything is written.
   */
  public CompletableFuture<NamespaceOutcome> create(String id, String name, String description) {
    String chosen;
    try {
      chosen = id == null || id.isBlank() ? newIds.get() : checkId(id.trim());
      checkName(name);
      checkDescription(description);
    } catch (NamespaceException invalid) {
      return CompletableFuture.failedFuture(invalid);
    }
    return submit(new Create(chosen, name.trim(), description, clock.currentTimeMillis()));
  }

  public CompletableFuture<NamespaceOutcome> update(String id, String name, String description) {
    try {
      String checked = checkId(Objects.requireNonNullElse(id, "").trim());
      checkName(name);
      checkDescription(description);
      return submit(new Update(checked, name.trim(), description));
    } catch (NamespaceException invalid) {
      return CompletableFuture.failedFuture(invalid);
    }
  }

  public CompletableFuture<NamespaceOutcome> delete(String id) {
    try {
      return submit(new Delete(checkId(Objects.requireNonNullElse(id, "").trim())));
    } catch (NamespaceException invalid) {
      return CompletableFuture.failedFuture(invalid);
    }
  }

  /**
   * The store, for a read. Every read of replicated state passes here: in a cluster, the barrier
   * that makes a follower's read linearizable goes here.
   */
  private NamespaceStore readable() {
    return store;
  }

  private CompletableFuture<NamespaceOutcome> submit(NamespaceCommand command) {
    return writes.submit(
        NamespaceStore.NAME,
        NamespaceCommand.encode(command),
        NamespaceOutcome.class,
        NamespaceException::new);
  }

  static String checkId(String id) {
    if (isPublic(id)) {
      throw NamespaceException.invalid(
          "the public namespace always exists; it cannot be created, changed or deleted");
    }
    if (id.length() > MAX_ID_LENGTH) {
      throw NamespaceException.invalid(
          "namespace id is longer than " + MAX_ID_LENGTH + " characters");
    }
    if (!ID.matcher(id).matches()) {
      throw NamespaceException.invalid(
          "namespace id [" + id + "] must be letters, digits, '_' and '-'");
    }
    return id;
  }

  static void checkName(String name) {
    if (name == null || name.isBlank()) {
      throw NamespaceException.invalid("namespace name must not be blank");
    }
    if (name.length() > MAX_NAME_LENGTH) {
      throw NamespaceException.invalid(
          "namespace name is longer than " + MAX_NAME_LENGTH + " characters");
    }
    for (int i = 0; i < name.length(); i++) {
      if (FORBIDDEN_NAME_CHARACTERS.indexOf(name.charAt(i)) >= 0) {
        throw NamespaceException.invalid(
            "namespace name must not contain any of " + FORBIDDEN_NAME_CHARACTERS);
      }
    }
  }

  static void checkDescription(String description) {
    if (description != null && description.length() > MAX_DESCRIPTION_LENGTH) {
      throw NamespaceException.invalid(
          "namespace description is longer than " + MAX_DESCRIPTION_LENGTH + " characters");
    }
  }
}
