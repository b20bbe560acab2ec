package io.sluice.flow.internal.limit;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Admits at most {@code limit} calls in any window of {@code windowNanos}, wherever the window
 * starts and however many threads call: a sliding log of admission times, so a burst of up to
 * {@code limit} passes at once and nothing overshoots at window edges (Sentinel's bucketed window
 * admits up to twice its limit inside one second).
 *
 * <p><b>Blocks.</b> Admissions are numbered by one atomic sequence. Consecutive admissions are
 * grouped into blocks of {@code g = 2^k} (g = 1 up to {@value #MAX_BLOCKS} per window), and the log
 * keeps the start time of each block. A block may start only when the block {@code M} places
 * earlier started at least a window ago, with {@code M = floor((limit + 1) / g) - 1}. Any window
 * then holds at most {@code M} block starts, plus at most {@code g - 1} admissions of a block that
 * started before it: {@code M·g + g - 1 <= limit}. With {@code g = 1} that is exactly {@code
 * limit}; with larger g the limiter admits up to about {@code 2/MAX_BLOCKS} of the limit less than
 * allowed, never more. Admissions inside a started block need no clock comparison.
 *
 * <p><b>Concurrency.</b> A caller starting block {@code b} first records its start time in the ring
 * slot for {@code b} (a CAS that only ever raises the recorded time, so a racer with an older clock
 * reading cannot make the log more permissive), and only then claims the sequence number with a
 * CAS. So whenever the sequence has passed a block, that block's start is readable, and a caller
 * that dies between the two steps leaves nothing half-done. Every slot value carries the block's
 * lap around the ring, so a stale slot is recognised (and treated as "too recent", which rejects:
 * the safe side).
 *
 * <p><b>Time.</b> Times are ns since the owner's origin (non-negative). Slots store them in 1,024
 * ns units with the lap in the low 8 bits; the comparison rounds the recorded start up, so rounding
 * can only reject a call up to 1 µs early, never admit one late. The window bound holds for the
 * clock readings passed in, in the order admissions are claimed.
 */
public final class SlidingWindowLimiter {

  /** Most blocks per window, and so the most ring slots (the memory bound per limiter). */
  public static final int MAX_BLOCKS = 256;

  private static final int TIME_SHIFT = 10;
  private static final int LAP_BITS = 8;
  private static final long LAP_MASK = (1L << LAP_BITS) - 1;
  private static final VarHandle ADMITTED;

  static {
    try {
      ADMITTED =
          MethodHandles.lookup().findVarHandle(SlidingWindowLimiter.class, "admitted", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final long limit;
  private final long windowNanos;
  private final int blockShift;
  private final long inBlockMask;
  private final int blocksPerWindow;
  private final int ringShift;
  private final int ringMask;

  /** The sequence of admissions; a field rather than an AtomicLong, one pointer fewer per call. */
  private volatile long admitted;

  private final AtomicLongArray blockStarts;

  /**
   * @param limit calls allowed per window; 0 rejects everything
   * @param windowNanos the window length, > 0
   */
  public SlidingWindowLimiter(long limit, long windowNanos) {
    this(limit, windowNanos, MAX_BLOCKS);
  }

  /**
   * @param limit calls allowed per window; 0 rejects everything
   * @param windowNanos the window length, > 0
   * @param maxBlocks at most this many blocks (ring slots): less memory, coarser blocks
   */
  public SlidingWindowLimiter(long limit, long windowNanos, int maxBlocks) {
    if (limit < 0 || windowNanos <= 0 || maxBlocks < 1 || maxBlocks > MAX_BLOCKS) {
      throw new IllegalArgumentException(
          "limit " + limit + ", window " + windowNanos + ", blocks " + maxBlocks);
    }
    this.limit = limit;
    this.windowNanos = windowNanos;
    int shift = 0;
    while (blocksFor(limit, shift) > maxBlocks) {
      shift++;
    }
    this.blockShift = shift;
    this.inBlockMask = (1L << shift) - 1;
    this.blocksPerWindow = (int) blocksFor(limit, shift);
    int ring = Integer.highestOneBit(Math.max(1, blocksPerWindow)) << 1;
    this.ringShift = Integer.numberOfTrailingZeros(ring);
    this.ringMask = ring - 1;
    this.blockStarts = new AtomicLongArray(ring);
  }

  /**
   * A limiter for a rate of {@code count} calls per {@code windowSeconds}: {@code floor(count)} per
   * window when {@code count >= 1}; one call per {@code windowSeconds / count} when {@code 0 <
   * count < 1} (so 0.2 per second is one call per five seconds); nothing when {@code count == 0}.
   */
  public static SlidingWindowLimiter forRate(double count, double windowSeconds, int maxBlocks) {
    long windowNanos = Math.max(1, Math.round(windowSeconds * 1e9));
    if (count >= 1) {
      return new SlidingWindowLimiter(
          (long) Math.min(Math.floor(count), Long.MAX_VALUE / 4), windowNanos, maxBlocks);
    }
    if (count > 0) {
      double stretched = Math.ceil(windowSeconds * 1e9 / count);
      long nanos = stretched >= Long.MAX_VALUE / 4 ? Long.MAX_VALUE / 4 : (long) stretched;
      return new SlidingWindowLimiter(1, nanos, maxBlocks);
    }
    return new SlidingWindowLimiter(0, windowNanos, maxBlocks);
  }

  /** Blocks per window for a limit and block size 2^shift: {@code floor((limit + 1) / g) - 1}. */
  private static long blocksFor(long limit, int shift) {
    return limit == 0 ? 0 : ((limit + 1) >>> shift) - 1;
  }

  /** The configured calls per window. */
  public long limit() {
    return limit;
  }

  /** The window length in ns. */
  public long windowNanos() {
    return windowNanos;
  }

  /** Blocks that fit in a window at the full limit; warm-up passes fewer to lower the limit. */
  public int blocksPerWindow() {
    return blocksPerWindow;
  }

  /** Calls per block ({@code 2^k}). */
  public long blockSize() {
    return 1L << blockShift;
  }

  /** The number of blocks that admit at most {@code calls} per window (for a lowered limit). */
  public int blocksFor(long calls) {
    return (int) Math.min(blocksPerWindow, blocksFor(Math.max(0, calls), blockShift));
  }

  /** How many calls this limiter has admitted since it was created. */
  public long admittedCount() {
    return admitted;
  }

  /** Admits a call at {@code now} if the full limit allows it. */
  public boolean tryAcquire(long now) {
    return tryAcquire(now, blocksPerWindow);
  }

  /**
   * Admits a call at {@code now} if at most {@code blocks} blocks (at most {@code blocks·g + g - 1}
   * calls) would then fall in the window ending at {@code now}.
   *
   * @param blocks at most {@link #blocksPerWindow()}
   */
  public boolean tryAcquire(long now, int blocks) {
    if (blocks <= 0) {
      return false;
    }
    while (true) {
      long seq = admitted;
      if ((seq & inBlockMask) != 0) {
        if (ADMITTED.compareAndSet(this, seq, seq + 1)) {
          return true;
        }
        continue;
      }
      long block = seq >>> blockShift;
      long earlier = block - blocks;
      if (earlier >= 0) {
        long recorded = blockStarts.get((int) (earlier & ringMask));
        if (recorded == 0 || lapOf(recorded) != lap(earlier)) {
          return false;
        }
        if (now < startUpperBound(recorded) + windowNanos) {
          return false;
        }
      }
      int slot = (int) (block & ringMask);
      long mine = pack(now, block);
      long current = blockStarts.get(slot);
      if (current == 0 || lapOf(current) == lap(block - (ringMask + 1))) {
        if (!blockStarts.compareAndSet(slot, current, mine)) {
          continue;
        }
      } else if (lapOf(current) == lap(block)) {
        if (current < mine && !blockStarts.compareAndSet(slot, current, mine)) {
          continue;
        }
      } else {
        continue;
      }
      if (ADMITTED.compareAndSet(this, seq, seq + 1)) {
        return true;
      }
    }
  }

  private long lap(long block) {
    return (block >>> ringShift) & LAP_MASK;
  }

  private static long lapOf(long recorded) {
    return recorded & LAP_MASK;
  }

  private long pack(long now, long block) {
    return (((now >>> TIME_SHIFT) + 1) << LAP_BITS) | lap(block);
  }

  /** The latest ns the recorded block start can stand for (its 1,024 ns unit's last ns). */
  private static long startUpperBound(long recorded) {
    return ((recorded >>> LAP_BITS) << TIME_SHIFT) - 1;
  }
}
