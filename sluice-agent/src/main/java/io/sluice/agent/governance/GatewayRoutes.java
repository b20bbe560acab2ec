package io.sluice.agent.governance;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * What the gateway governance needs to read from Spring types the agent cannot name: a Spring Cloud
 * Gateway {@code Route}'s id, and a reactive {@code ServerHttpResponse}'s status. Method handles
 * are looked up once per class.
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

  /** {@code response -> response.getStatusCode()} and {@code status -> status.value()}. */
  private static final ClassValue<MethodHandle[]> STATUS =
      new ClassValue<>() {
        @Override
        protected MethodHandle[] computeValue(Class<?> type) {
          Class<?> api =
              ServiceInstanceTags.interfaceNamed(
                  type, "org.springframework.http.server.reactive.ServerHttpResponse");
          if (api == null) {
            return null;
          }
          try {
            Class<?> statusCode =
                Class.forName(
                    "org.springframework.http.HttpStatusCode", false, api.getClassLoader());
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            return new MethodHandle[] {
              lookup
                  .findVirtual(api, "getStatusCode", MethodType.methodType(statusCode))
                  .asType(MethodType.methodType(Object.class, Object.class)),
              lookup
                  .findVirtual(statusCode, "value", MethodType.methodType(int.class))
                  .asType(MethodType.methodType(int.class, Object.class))
            };
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

  /** The response's status, 0 when not set or unreadable. */
  static int statusOf(Object response) {
    if (response == null) {
      return 0;
    }
    MethodHandle[] handles = STATUS.get(response.getClass());
    if (handles == null) {
      return 0;
    }
    try {
      Object status = handles[0].invokeExact(response);
      return status == null ? 0 : (int) handles[1].invokeExact(status);
    } catch (Throwable t) {
      return 0;
    }
  }
}
