package io.sluice.server.protocol.http;

import io.sluice.server.replication.CommandTooLargeException;
import io.sluice.server.replication.ReplicationException;
import io.sluice.server.replication.StateApplyException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Maps what can go wrong on the way through replication to an HTTP answer: a command too large is
 * the client's fault (413); a replicator that is starting, not the leader, overloaded or closing
 * asks the client to come back (503); a state that failed to apply, or anything else, is the
 * server's (500).
 */
public final class WriteFailures {
  private WriteFailures() {}

  /** The cause a future failed with, unwrapped from the completion wrappers. */
  public static Throwable cause(Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  /** The answer for a replication failure; null when the cause is none of those. */
  public static HttpApiException ofReplication(Throwable cause) {
    if (cause instanceof CommandTooLargeException) {
      return HttpApiException.tooLarge(cause.getMessage());
    }
    if (cause instanceof StateApplyException) {
      return new HttpApiException(500, NacosErrorCode.SERVER_ERROR, cause.getMessage());
    }
    if (cause instanceof ReplicationException) {
      return HttpApiException.unavailable(cause.getMessage());
    }
    return null;
  }

  /** The answer for any failure: a replication one as above, else a 500. */
  public static HttpApiException of(Throwable failure) {
    Throwable cause = cause(failure);
    if (cause instanceof HttpApiException api) {
      return api;
    }
    HttpApiException replication = ofReplication(cause);
    if (replication != null) {
      return replication;
    }
    return new HttpApiException(500, NacosErrorCode.SERVER_ERROR, String.valueOf(cause));
  }
}
