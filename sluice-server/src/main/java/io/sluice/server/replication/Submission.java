package io.sluice.server.replication;

import java.util.concurrent.CompletableFuture;

/** One accepted command waiting for its outcome. The arrays are owned by the replicator. */
record Submission(byte[] stateName, byte[] command, CompletableFuture<Object> future) {}
