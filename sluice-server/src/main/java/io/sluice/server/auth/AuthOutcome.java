package io.sluice.server.auth;

import io.sluice.server.feature.Fault;
import io.sluice.server.feature.Refusal;

/** What applying an {@link AuthCommand} did; handed back to whoever submitted it. */
public sealed interface AuthOutcome {
  /** The change was made. */
  record Applied() implements AuthOutcome {}

  /** What the command would create is there already (a user, a role binding, a key); no change. */
  record AlreadyExists(String what) implements AuthOutcome {}

  /** What the command changes or removes is not there; nothing changed. */
  record NotFound(String what) implements AuthOutcome {}

  /**
   * The command could not be applied: unreadable ({@link Fault#INTERNAL}), or it breaks a rule only
   * apply can check, such as a full store or deleting the admin ({@link Fault#INVALID}).
   */
  record Rejected(Fault fault, String reason) implements AuthOutcome, Refusal {}
}
