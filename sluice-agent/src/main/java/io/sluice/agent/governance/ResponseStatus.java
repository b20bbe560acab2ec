package io.sluice.agent.governance;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Reads the HTTP status of response objects of types the agent cannot name, through method handles
 * looked up once per class: a Spring reactive {@code ServerHttpResponse} ({@code
 * getStatusCode().value()}, 0 while unset), a WebClient {@code ClientResponse} ({@code
 * statusCode().value()}) and an Apache HttpCore 5 {@code HttpResponse} ({@code getCode()}).
 */
final class ResponseStatus {
  private static final String SERVER_RESPONSE =
      "org.springframework.http.server.reactive.ServerHttpResponse";
  private static final String CLIENT_RESPONSE =
      "org.springframework.web.reactive.function.client.ClientResponse";
  private static final String APACHE_RESPONSE = "org.apache.hc.core5.http.HttpResponse";

  /** Either {status-code accessor, value()} (Spring) or {getCode()} (Apache); null if unknown. */
  private static final ClassValue<MethodHandle[]> READERS =
      new ClassValue<>() {
        @Override
        protected MethodHandle[] computeValue(Class<?> type) {
          try {
            Class<?> api = ServiceInstanceTags.interfaceNamed(type, SERVER_RESPONSE);
            if (api != null) {
              return spring(api, "getStatusCode");
            }
            api = ServiceInstanceTags.interfaceNamed(type, CLIENT_RESPONSE);
            if (api != null) {
              return spring(api, "statusCode");
            }
            api = ServiceInstanceTags.interfaceNamed(type, APACHE_RESPONSE);
            if (api != null) {
              return new MethodHandle[] {
                MethodHandles.publicLookup()
                    .findVirtual(api, "getCode", MethodType.methodType(int.class))
                    .asType(MethodType.methodType(int.class, Object.class))
              };
            }
          } catch (ReflectiveOperationException e) {
            return null;
          }
          return null;
        }
      };

  private ResponseStatus() {}

  private static MethodHandle[] spring(Class<?> api, String accessor)
      throws ReflectiveOperationException {
    Class<?> statusCode =
        Class.forName("org.springframework.http.HttpStatusCode", false, api.getClassLoader());
    MethodHandles.Lookup lookup = MethodHandles.publicLookup();
    return new MethodHandle[] {
      lookup
          .findVirtual(api, accessor, MethodType.methodType(statusCode))
          .asType(MethodType.methodType(Object.class, Object.class)),
      lookup
          .findVirtual(statusCode, "value", MethodType.methodType(int.class))
          .asType(MethodType.methodType(int.class, Object.class))
    };
  }

  /** The response's status, 0 when not set or unreadable. */
  static int of(Object response) {
    if (response == null) {
      return 0;
    }
    MethodHandle[] handles = READERS.get(response.getClass());
    if (handles == null) {
      return 0;
    }
    try {
      if (handles.length == 1) {
        return (int) handles[0].invokeExact(response);
      }
      Object status = handles[0].invokeExact(response);
      return status == null ? 0 : (int) handles[1].invokeExact(status);
    } catch (Throwable t) {
      return 0;
    }
  }
}
