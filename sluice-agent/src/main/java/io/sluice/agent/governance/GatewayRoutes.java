package io.sluice.agent.governance;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Reads a Spring Cloud Gateway {@code Route}'s id, a type the agent cannot name, through a method
 * handle looked up once per class.
 */
final class GatewayRoutes {
  private static final ClassValue<MethodHandle> ROUTE_ID =
      new ClassValue<>() {
        @Override
        protected MethodHandle computeValue(Class<?> type) {
          try {
            return MethodHandles.publicLookup()
                .findVirtual(type, "getId", MethodType.methodType(String.class))
                .asType(MethodType.methodType(String.class, Object.class));
          } catch (ReflectiveOperationException e) {
            return null;
          }
        }
      };

  private GatewayRoutes() {}

  /** The route's id, or null. */
  static String idOf(Object route) {
    if (route == null) {
      return null;
    }
    MethodHandle getId = ROUTE_ID.get(route.getClass());
    if (getId == null) {
      return null;
    }
    try {
      return (String) getId.invokeExact(route);
    } catch (Throwable t) {
      return null;
    }
  }
}
