package io.sluice.server.replication;

import io.sluice.server.ServerOptions;
import java.util.List;

/** Starts the replicator the server writes through; tests may substitute their own. */
@FunctionalInterface
public interface ReplicatorFactory {
  Replicator start(ServerOptions options, List<ReplicatedState> states);
}
