package io.sluice.bench.replication;

import io.sluice.server.replication.ReplicatedState;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The cheapest honest state: counts commands and sums their bytes, so the benchmark measures the
 * replicator, not a state. Outcome: the running count, boxed (one allocation, as a real outcome).
 */
final class CounterState implements ReplicatedState {
  static final String NAME = "counter";

  private long commands;
  private long bytes;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Object apply(ByteBuffer command, long logIndex) {
    commands++;
    bytes += command.remaining();
    return commands;
  }

  @Override
  public void writeSnapshot(DataOutputStream out) throws IOException {
    out.writeLong(commands);
    out.writeLong(bytes);
  }

  @Override
  public void loadSnapshot(DataInputStream in) throws IOException {
    commands = in.readLong();
    bytes = in.readLong();
  }
}
