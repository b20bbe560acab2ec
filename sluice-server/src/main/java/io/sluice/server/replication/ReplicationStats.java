package io.sluice.server.replication;

/**
 * Counters of one replicator since it started, for tests, benchmarks and the admin API. Commands
 * per entry ({@code commandsApplied / entriesApplied}) is how well group commit is batching.
 *
 * @param entriesProposed Raft entries this node proposed
 * @param commandsProposed commands in those entries
 * @param entriesApplied command batches applied here (from any proposer, replay included)
 * @param commandsApplied commands in those batches, failed ones included
 * @param commandsFailed commands whose state threw or was unknown
 * @param lastAppliedIndex Raft index of the last entry applied here
 * @param snapshotIndex Raft index of the newest snapshot, -1 if none
 * @param logStartIndex first Raft index still in the log (earlier ones were purged)
 * @param pendingSubmissions submissions accepted and not yet completed
 */
public record ReplicationStats(
    long entriesProposed,
    long commandsProposed,
    long entriesApplied,
    long commandsApplied,
    long commandsFailed,
    long lastAppliedIndex,
    long snapshotIndex,
    long logStartIndex,
    int pendingSubmissions) {}
