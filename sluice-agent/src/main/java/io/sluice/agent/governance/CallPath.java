package io.sluice.agent.governance;

import io.sluice.agent.bootstrap.GovernanceHooks;

/**
 * Where a resource is governed, and what that call site can offer a rule: the call's arguments (for
 * hot-parameter rules by {@code paramIdx}), the request's headers, query parameters and cookies
 * (for rules with a {@code paramSource}), and whether a paced call may wait on its thread or is
 * delayed without blocking. The constants are {@link GovernanceHooks}' path numbers, in order; a
 * new transport adds its own.
 */
enum CallPath {
  SERVLET_ROUTE("Spring MVC route", true, true, true, true),
  REACTIVE_ROUTE("WebFlux route", true, false, true, false),
  GATEWAY_ROUTE("Spring Cloud Gateway route", true, false, true, false),
  HTTP_CLIENT("HTTP client call", false, false, false, true),
  REACTIVE_CLIENT("WebClient call", false, false, false, false),
  DUBBO_PROVIDER("Dubbo provider method", true, true, false, true),
  DUBBO_CONSUMER("Dubbo consumer call", false, true, false, true);

  private static final CallPath[] BY_NUMBER = values();

  final String description;
  final boolean inbound;
  final boolean arguments;
  final boolean requestAttributes;
  final boolean blocking;

  CallPath(
      String description,
      boolean inbound,
      boolean arguments,
      boolean requestAttributes,
      boolean blocking) {
    this.description = description;
    this.inbound = inbound;
    this.arguments = arguments;
    this.requestAttributes = requestAttributes;
    this.blocking = blocking;
  }

  /** The path of one of {@link GovernanceHooks}' path numbers; null for an unknown one. */
  static CallPath of(int number) {
    return number >= 0 && number < BY_NUMBER.length ? BY_NUMBER[number] : null;
  }

  int bit() {
    return 1 << ordinal();
  }

  static {
    if (SERVLET_ROUTE.ordinal() != GovernanceHooks.SERVLET_ROUTE
        || REACTIVE_ROUTE.ordinal() != GovernanceHooks.REACTIVE_ROUTE
        || GATEWAY_ROUTE.ordinal() != GovernanceHooks.GATEWAY_ROUTE
        || HTTP_CLIENT.ordinal() != GovernanceHooks.HTTP_CLIENT
        || REACTIVE_CLIENT.ordinal() != GovernanceHooks.REACTIVE_CLIENT
        || DUBBO_PROVIDER.ordinal() != GovernanceHooks.DUBBO_PROVIDER
        || DUBBO_CONSUMER.ordinal() != GovernanceHooks.DUBBO_CONSUMER) {
      throw new AssertionError("CallPath and GovernanceHooks' path numbers disagree");
    }
  }
}
