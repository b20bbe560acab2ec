package io.sluice.agent.bootstrap;

import java.util.function.BiPredicate;

/** A header filter that keeps every header, for copying an immutable request. */
public final class AllHeaders implements BiPredicate<String, String> {
  public static final AllHeaders INSTANCE = new AllHeaders();

  private AllHeaders() {}

  @Override
  public boolean test(String name, String value) {
    return true;
  }
}
