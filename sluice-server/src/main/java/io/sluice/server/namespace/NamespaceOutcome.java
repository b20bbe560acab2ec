package io.sluice.server.namespace;

import io.sluice.server.feature.Fault;
import io.sluice.server.feature.Refusal;

/** What applying a {@link NamespaceCommand} did; handed back to whoever submitted it. */
public sealed interface NamespaceOutcome {
  record Created(Namespace namespace) implements NamespaceOutcome {}

  /** A namespace with that id exists already; nothing changed. */
  record AlreadyExists(String id) implements NamespaceOutcome {}

  record Updated(Namespace namespace) implements NamespaceOutcome {}

  /** No namespace has that id; nothing changed. */
  record NotFound(String id) implements NamespaceOutcome {}

  /**
   * @param existed false when there was nothing to delete (still a success, as in Nacos)
   */
  record Deleted(boolean existed) implements NamespaceOutcome {}

  /**
   * The command could not be applied: unreadable ({@link Fault#INTERNAL}), or the store is full
   * ({@link Fault#INVALID}); nothing changed. The door's caller never sees it: the write fails with
   * a {@link NamespaceException} of this fault.
   */
  record Rejected(Fault fault, String reason) implements NamespaceOutcome, Refusal {}
}
