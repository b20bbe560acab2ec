package io.sluice.flow;

/**
 * Decodes the {@code long} permits that {@link Resource#tryAcquire()} returns. A permit carries
 * everything {@link Resource#release(long, boolean)} needs, so it can be released from any thread
 * and nothing is allocated per call.
 *
 * <p>Layout: a negative permit is a block: bits 56–58 hold the {@link RuleKind} ordinal, bits 0–31
 * the blocking rule's serial number. Zero is {@link #UNGOVERNED}. A positive permit was admitted:
 * bits 4–62 hold the entry time (ns since the registry started, good for 18 years, or the scheduled
 * start of a paced call), bit 0 is always set, bit 1 says the call counts in the inbound traffic of
 * system rules, bit 2 that the caller must wait for its scheduled start, bit 3 that it counts in
 * the resource's concurrency. So a release undoes exactly what its entry did, even across rule
 * reloads.
 */
public final class Permit {

  /** Admitted by a resource that no rule governs; releasing it does nothing. */
  public static final long UNGOVERNED = 0L;

  static final long GOVERNED = 1L;
  static final long SYSTEM = 2L;
  static final long WAIT = 4L;
  static final long CONCURRENCY = 8L;
  static final long TIMED = 16L;
  static final int FLAG_BITS = 5;
  static final long FLAG_MASK = (1L << FLAG_BITS) - 1;

  private static final int KIND_SHIFT = 56;
  private static final RuleKind[] KINDS = RuleKind.values();

  private Permit() {}

  /** Whether the call may proceed (after {@link Resource#waitNanos(long)} if {@link #mustWait}). */
  public static boolean isAdmitted(long permit) {
    return permit >= 0;
  }

  /** Whether a rule rejected the call. */
  public static boolean isBlocked(long permit) {
    return permit < 0;
  }

  /** The kind of rule that blocked the call, or null if it was admitted. */
  public static RuleKind blockedBy(long permit) {
    return permit < 0 ? KINDS[(int) ((permit >>> KIND_SHIFT) & 0x7)] : null;
  }

  /**
   * Whether a pacing rule scheduled this admitted call for later; see {@link Resource#waitNanos}.
   */
  public static boolean mustWait(long permit) {
    return permit > 0 && (permit & WAIT) != 0;
  }

  static long blocked(RuleKind kind, int ruleSerial) {
    return Long.MIN_VALUE | ((long) kind.ordinal() << KIND_SHIFT) | (ruleSerial & 0xFFFF_FFFFL);
  }

  static int blockingRuleSerial(long permit) {
    return (int) permit;
  }

  static long admitted(long startNanos, long flags) {
    return (startNanos << FLAG_BITS) | flags | GOVERNED;
  }

  static long startNanos(long permit) {
    return permit >>> FLAG_BITS;
  }
}
