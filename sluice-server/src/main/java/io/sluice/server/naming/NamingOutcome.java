package io.sluice.server.naming;

import io.sluice.server.feature.Fault;
import io.sluice.server.feature.Refusal;

/**
 * What applying a replicated naming command did; handed back to whoever submitted it. Every
 * decision about whether a command applies (the service exists, is empty, has the instance) is made
 * in apply from the replicated state and the facts the command carries, so every replica decides
 * the same.
 */
public sealed interface NamingOutcome {
  /** The command applied. */
  record Applied() implements NamingOutcome {}

  /** Creating a service that exists already; nothing changed. */
  record ServiceExists(ServiceKey service) implements NamingOutcome {}

  /** Changing or deleting a service that does not exist; nothing changed. */
  record ServiceNotFound(ServiceKey service) implements NamingOutcome {}

  /** Deleting a service that still has instances; nothing changed. */
  record ServiceNotEmpty(ServiceKey service) implements NamingOutcome {}

  /**
   * Changing an instance the service does not have; nothing changed.
   *
   * @param serviceExists whether the service itself exists
   */
  record InstanceNotFound(ServiceKey service, boolean serviceExists) implements NamingOutcome {}

  /**
   * The command could not be read ({@link Fault#INTERNAL}) or broke a rule ({@link Fault#INVALID});
   * nothing changed. The door's caller never sees it: the write fails with a {@link
   * NamingException} of this fault.
   */
  record Rejected(Fault fault, String reason) implements NamingOutcome, Refusal {}

  NamingOutcome APPLIED = new Applied();
}
