package io.sluice.flow.internal.flow;

/**
 * Sentinel's CHAIN strategy: the rule applies only to calls that came through the entrance named by
 * {@code refResource}; others pass it untouched.
 */
final class ChainCheck extends FlowCheck {

  private final FlowCheck delegate;
  private final String entrance;

  ChainCheck(FlowCheck delegate) {
    super(delegate.rule(), delegate.serial());
    this.delegate = delegate;
    this.entrance = delegate.rule().refResource();
  }

  @Override
  public long tryAcquire(long now, String origin, String entrance) {
    return this.entrance.equals(entrance) ? delegate.tryAcquire(now, origin, entrance) : 0;
  }
}
