package io.sluice.server.replication;

/**
 * The state's {@link ReplicatedState#apply} threw instead of returning an error outcome. The
 * command is in the log (it is committed) and every replica skipped it the same way, provided the
 * state throws deterministically and did not change before throwing.
 */
public final class StateApplyException extends ReplicationException {
  public StateApplyException(String message, Throwable cause) {
    super(message, cause);
  }
}
