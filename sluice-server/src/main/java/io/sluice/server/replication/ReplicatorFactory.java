package io.sluice.server.replication;

import java.util.List;

/**
 * Starts the replicator the server writes through, from the options the server derived from its
 * own; tests may substitute their own replicator.
 */
@FunctionalInterface
public interface ReplicatorFactory {
  /** The default: a {@link RatisReplicator} over {@code options.dataDir()}. */
  ReplicatorFactory RATIS = RatisReplicator::startUnchecked;

  Replicator start(ReplicationOptions options, List<ReplicatedState> states);
}
