package io.sluice.flow.internal.system;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Lets a fraction of calls through, spread evenly and deterministically: call number {@code s} of a
 * running sequence passes when {@code floor((s + 1)·r) > floor(s·r)}, so exactly {@code r} of any
 * long run passes and passes are never bunched. The ratio is the output of the system controller.
 */
final class AdmissionRatio {

  private static final int SCALE_BITS = 16;
  private static final long ONE = 1L << SCALE_BITS;

  private final AtomicLong sequence = new AtomicLong();
  private volatile long scaled = ONE;

  double ratio() {
    return (double) scaled / ONE;
  }

  void set(double ratio) {
    scaled = Math.max(0, Math.min(ONE, Math.round(ratio * ONE)));
  }

  boolean isFull() {
    return scaled >= ONE;
  }

  boolean admit() {
    long r = scaled;
    if (r >= ONE) {
      return true;
    }
    long s = sequence.getAndIncrement() & ((1L << 40) - 1);
    return ((s + 1) * r) >>> SCALE_BITS > (s * r) >>> SCALE_BITS;
  }
}
