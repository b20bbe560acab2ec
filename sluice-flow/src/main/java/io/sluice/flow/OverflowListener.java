package io.sluice.flow;

/**
 * Told when a resource name is resolved to the shared overflow resource because the registry holds
 * {@code maxResources} resources already. Called on the resolving thread; must be quick.
 */
@FunctionalInterface
public interface OverflowListener {

  /**
   * @param resourceName the name that did not get its own state
   * @param overflowedSoFar how many resolutions have overflowed since the registry was built
   */
  void onResourceOverflow(String resourceName, long overflowedSoFar);
}
