package io.sluice.server.replication;

/** Stands in a batch's outcome array for a command whose apply threw. */
record ApplyFailure(StateApplyException exception) {}
