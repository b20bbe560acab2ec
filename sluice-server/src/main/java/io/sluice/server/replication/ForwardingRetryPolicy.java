package io.sluice.server.replication;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.ratis.client.retry.ClientRetryEvent;
import org.apache.ratis.client.retry.RequestTypeDependentRetryPolicy;
import org.apache.ratis.proto.RaftProtos.RaftClientRequestProto;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.util.TimeDuration;

/**
 * How long a follower's forwarding client (see {@link LeaderForwarding}) waits before it tries a
 * batch again, chosen by what the failed attempt says about the leader:
 *
 * <ul>
 *   <li>a peer named the leader ({@code NotLeaderException} with a suggestion): no wait (Ratis's
 *       client skips the sleep then, whatever the policy says);
 *   <li>the leader is elected but has not yet committed an entry of its term ({@code
 *       LeaderNotReadyException}), or this node has learnt of a leader other than the one the
 *       client was built for (the leader changed while the batch was on its way): the soon wait, a
 *       small fraction of the election timeout, since that leader takes writes within one commit
 *       round or a redirect;
 *   <li>anything else (no leader named, the peer refused the connection or did not answer): an
 *       election is under way or the leader just died (this node may still believe in it until its
 *       own election timeout): the election poll.
 * </ul>
 *
 * <p>Attempts go on until the request timeout (the surrounding {@link
 * RequestTypeDependentRetryPolicy} counts it from the batch's first attempt), so a batch rides out
 * an election however many refusals it meets. Every attempt of a batch carries the same client id
 * and call id, so a resend that reaches a leader which already has the batch is answered from the
 * retry cache, never applied twice, as long as the cache outlives the attempts: the last one ends
 * at most one attempt timeout (the upper election timeout) after the request timeout, well inside
 * the cache's 30 s (see {@link RatisProperties}). The waits change only when a resend goes, not
 * what it is.
 *
 * <p>Why not one fixed wait: with a fixed 125 ms (a quarter of the lower election timeout, before
 * this class), a batch that had met "not ready" or a dead peer slept up to 125 ms after the new
 * leader was ready, and so did every write queued behind it (a node keeps at most {@code
 * maxEntriesInFlight} batches in flight). Attempts during an election cost one loopback or LAN
 * round trip each, at most {@code maxEntriesInFlight} per poll interval per node.
 *
 * <p>Each failed attempt that will be tried again is noted in the node's {@link
 * ForwardingFailureLog}, which writes one line per interval for all of them.
 *
 * <p>Thread-safe: stateless apart from the leader supplier, which reads Ratis's volatile view, and
 * the failure log, which is thread-safe.
 */
final class ForwardingRetryPolicy implements RetryPolicy {
  private final Supplier<RaftPeerId> knownLeader;
  private final RaftPeerId builtFor;
  private final Action retrySoon;
  private final Action electionPoll;
  private final ForwardingFailureLog failures;

  /**
   * @param knownLeader the leader this node knows of now (itself included), or null
   * @param builtFor the leader the client was built for, or null (none was known)
   */
  ForwardingRetryPolicy(
      Supplier<RaftPeerId> knownLeader,
      RaftPeerId builtFor,
      TimeDuration retrySoon,
      TimeDuration electionPoll,
      ForwardingFailureLog failures) {
    this.knownLeader = knownLeader;
    this.builtFor = builtFor;
    this.retrySoon = () -> retrySoon;
    this.electionPoll = () -> electionPoll;
    this.failures = failures;
  }

  /**
   * The policy of a forwarding client: the waits above, derived from the lower election timeout
   * (soon: a fiftieth, at least 5 ms; poll: a tenth, at least 20 ms; 10 and 50 ms by default),
   * attempts until the request timeout, failed attempts noted in {@code failures}.
   */
  static RetryPolicy of(
      ReplicationOptions options,
      Supplier<RaftPeerId> knownLeader,
      RaftPeerId builtFor,
      ForwardingFailureLog failures) {
    long electionMin = options.electionTimeoutMin().toMillis();
    ForwardingRetryPolicy writes =
        new ForwardingRetryPolicy(
            knownLeader,
            builtFor,
            millis(Math.max(5, electionMin / 50)),
            millis(Math.max(20, electionMin / 10)),
            failures);
    return RequestTypeDependentRetryPolicy.newBuilder()
        .setRetryPolicy(RaftClientRequestProto.TypeCase.WRITE, writes)
        .setTimeout(
            RaftClientRequestProto.TypeCase.WRITE, millis(options.requestTimeout().toMillis()))
        .build();
  }

  @Override
  public Action handleAttemptFailure(Event event) {
    Action action = nextAttempt(event.getCause());
    if (event.getCause() != null) {
      RaftPeerId tried =
          event instanceof ClientRetryEvent
              ? ((ClientRetryEvent) event).getRequest().getServerId()
              : builtFor;
      failures.attemptFailed(
          tried, event.getCause(), action.getSleepTime().toLong(TimeUnit.MILLISECONDS));
    }
    return action;
  }

  private Action nextAttempt(Throwable cause) {
    if (cause instanceof LeaderNotReadyException) {
      return retrySoon;
    }
    RaftPeerId leader = knownLeader.get();
    return leader != null && !leader.equals(builtFor) ? retrySoon : electionPoll;
  }

  @Override
  public String toString() {
    return "ForwardingRetryPolicy(builtFor="
        + builtFor
        + ", soon="
        + retrySoon.getSleepTime()
        + ", electionPoll="
        + electionPoll.getSleepTime()
        + ")";
  }

  private static TimeDuration millis(long millis) {
    return TimeDuration.valueOf(millis, TimeUnit.MILLISECONDS);
  }
}
