package io.sluice.server.namespace;

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

  /** The command could not be applied (unreadable, or the store is full); nothing changed. */
  record Rejected(String reason) implements NamespaceOutcome {}
}
