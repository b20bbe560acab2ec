package io.sluice.server.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.ratis.client.retry.ClientRetryEvent;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.util.TimeDuration;
import org.apache.ratis.util.Timestamp;
import org.junit.jupiter.api.Test;

/**
 * When a follower's forwarding client tries a batch again, with the cluster defaults (election
 * timeout 500-1000 ms, request timeout 2.5 s). Before this policy every failed attempt slept 125
 * ms, so a batch that met a leader not ready yet went on sleeping after it was.
 */
class ForwardingRetryPolicyTest {
  private static final RaftGroupId GROUP = RatisReplicator.groupIdFor("sluice");
  private static final RaftPeerId OLD_LEADER = RaftPeerId.valueOf("a");
  private static final RaftPeerId NEW_LEADER = RaftPeerId.valueOf("b");

  private final ReplicationPeer self = new ReplicationPeer("c", "127.0.0.1", 7848);
  private final ReplicationOptions options =
      ReplicationOptions.builder(Path.of("data"))
          .self(self)
          .peers(
              List.of(
                  new ReplicationPeer("a", "127.0.0.2", 7848),
                  new ReplicationPeer("b", "127.0.0.3", 7848),
                  self))
          .build();

  /** The leader this node knows of, as Ratis would report it. */
  private final AtomicReference<RaftPeerId> known = new AtomicReference<>(OLD_LEADER);

  private final AtomicLong nanos = new AtomicLong(123);
  private final List<String> lines = new ArrayList<>();
  private final ForwardingFailureLog failures = new ForwardingFailureLog(nanos::get, lines::add);

  private final RetryPolicy builtForOldLeader =
      ForwardingRetryPolicy.of(options, known::get, OLD_LEADER, failures);

  @Test
  void triesALeaderThatIsNotReadyYetAgainWithinAFewMilliseconds() {
    known.set(NEW_LEADER);
    RetryPolicy builtForNewLeader =
        ForwardingRetryPolicy.of(options, known::get, NEW_LEADER, failures);

    RetryPolicy.Action action =
        builtForNewLeader.handleAttemptFailure(
            attempt(NEW_LEADER, new LeaderNotReadyException(member(NEW_LEADER)), 0));

    assertThat(action.shouldRetry()).isTrue();
    assertThat(millis(action)).isEqualTo(10);
  }

  @Test
  void pollsAtATenthOfTheElectionTimeoutWhileNoLeaderIsKnown() {
    known.set(null);

    RetryPolicy.Action refused =
        builtForOldLeader.handleAttemptFailure(
            attempt(OLD_LEADER, new ConnectException("connection refused"), 0));
    RetryPolicy.Action candidate =
        builtForOldLeader.handleAttemptFailure(
            attempt(NEW_LEADER, new NotLeaderException(member(NEW_LEADER), null, List.of()), 0));

    assertThat(millis(refused)).isEqualTo(50);
    assertThat(millis(candidate)).isEqualTo(50);
  }

  @Test
  void pollsWhileThisNodeStillBelievesInTheLeaderThatStoppedAnswering() {
    // Until its own election timeout a follower still names the dead leader: no fast spinning.
    RetryPolicy.Action action =
        builtForOldLeader.handleAttemptFailure(
            attempt(OLD_LEADER, new ConnectException("connection refused"), 0));

    assertThat(millis(action)).isEqualTo(50);
  }

  @Test
  void triesAgainSoonOnceThisNodeHasLearntOfANewLeader() {
    known.set(NEW_LEADER);

    RetryPolicy.Action action =
        builtForOldLeader.handleAttemptFailure(
            attempt(OLD_LEADER, new ConnectException("connection refused"), 0));

    assertThat(action.shouldRetry()).isTrue();
    assertThat(millis(action)).isEqualTo(10);
  }

  @Test
  void givesUpOnceTheRequestTimeoutHasPassedSinceTheFirstAttempt() {
    known.set(NEW_LEADER);

    RetryPolicy.Action action =
        builtForOldLeader.handleAttemptFailure(
            attempt(
                NEW_LEADER,
                new LeaderNotReadyException(member(NEW_LEADER)),
                options.requestTimeout().plus(Duration.ofMillis(1)).toMillis()));

    assertThat(action.shouldRetry()).isFalse();
    assertThat(lines).as("a batch that gives up is its caller's error, not a retry").isEmpty();
  }

  @Test
  void aFailoversBurstOfFailedAttemptsWritesOneShortLinePerIntervalWithoutStackTraces() {
    // What Ratis's client delivers when the leader's socket refuses: the cause four layers deep.
    Exception refused =
        new CompletionException(
            new IOException(
                new IllegalStateException(
                    "UNAVAILABLE: io exception", new ConnectException("Connection refused"))));
    for (int i = 0; i < 40; i++) {
      builtForOldLeader.handleAttemptFailure(attempt(OLD_LEADER, refused, 0));
    }

    assertThat(lines)
        .containsExactly(
            "an attempt to a failed (ConnectException: Connection refused), next in 50 ms");

    nanos.addAndGet(TimeUnit.SECONDS.toNanos(ForwardingFailureLog.INTERVAL_SECONDS) - 1);
    builtForOldLeader.handleAttemptFailure(attempt(OLD_LEADER, refused, 0));
    assertThat(lines).hasSize(1);

    known.set(NEW_LEADER);
    nanos.incrementAndGet();
    builtForOldLeader.handleAttemptFailure(
        attempt(NEW_LEADER, new LeaderNotReadyException(member(NEW_LEADER)), 0));
    assertThat(lines).hasSize(2);
    assertThat(lines.get(1))
        .startsWith("an attempt to b failed (LeaderNotReadyException: b@group-")
        .endsWith(
            "is in LEADER state but not ready yet.), next in 10 ms;"
                + " 40 more attempts failed in the last 10 s")
        .doesNotContain("\n");
  }

  private static ClientRetryEvent attempt(RaftPeerId to, Exception failure, long firstAgoMillis) {
    RaftClientRequest request =
        RaftClientRequest.newBuilder()
            .setClientId(ClientId.randomId())
            .setServerId(to)
            .setGroupId(GROUP)
            .setCallId(1)
            .setMessage(Message.EMPTY)
            .setType(RaftClientRequest.writeRequestType())
            .build();
    return new ClientRetryEvent(
        3, request, 1, failure, Timestamp.currentTime().addTimeMs(-firstAgoMillis));
  }

  private static RaftGroupMemberId member(RaftPeerId peer) {
    return RaftGroupMemberId.valueOf(peer, GROUP);
  }

  private static long millis(RetryPolicy.Action action) {
    TimeDuration sleep = action.getSleepTime();
    return sleep.toLong(java.util.concurrent.TimeUnit.MILLISECONDS);
  }
}
