package io.sluice.server.feature;

/**
 * Whether the store may take writes now, asked before each replicated write: a disk about to fill
 * refuses them clearly instead of letting the log fail mid-write. {@link #OPEN} never refuses.
 */
@FunctionalInterface
public interface WriteGate {
  WriteGate OPEN = () -> null;

  /** Why writes are refused now, or null when they may proceed. Cheap: called on every write. */
  String refusal();
}
