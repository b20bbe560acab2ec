package io.sluice.flow;

/**
 * A monotonic nanosecond time source, read once per entry and once per exit. Inject a fake one in
 * tests to move time forward instead of sleeping.
 */
@FunctionalInterface
public interface Ticker {

  /**
   * Nanoseconds from an arbitrary origin; must never decrease. (Readings below the one taken when
   * the registry was built count as that one.)
   */
  long read();

  /** {@link System#nanoTime()}. */
  static Ticker system() {
    return System::nanoTime;
  }
}
