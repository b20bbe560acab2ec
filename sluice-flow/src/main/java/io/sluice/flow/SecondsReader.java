package io.sluice.flow;

/** What {@link FlowRegistry#readSeconds} hands the complete seconds to. */
public interface SecondsReader {

  /** A complete second begins; its resources follow. */
  void beginSecond(long second);

  /**
   * One resource's traffic in the second begun last. {@code counts} is refilled for the next
   * resource: read it during the call, do not keep it.
   */
  void resource(SecondCounts counts);
}
