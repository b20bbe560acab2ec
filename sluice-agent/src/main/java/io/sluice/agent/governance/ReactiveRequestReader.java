package io.sluice.agent.governance;

import io.sluice.flow.lane.RequestReader;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Reads a Spring {@code ServerHttpRequest} (WebFlux, Spring Cloud Gateway) for entry rules, through
 * method handles looked up once per request class: {@code getHeaders().getFirst(name)}, {@code
 * getCookies().getFirst(name).getValue()} and {@code getQueryParams().getFirst(name)}. Works with
 * Spring 6 and 7 (whose {@code HttpHeaders} is no longer a map but keeps {@code getFirst}).
 */
final class ReactiveRequestReader implements RequestReader<Object> {
  private static final String REQUEST =
      "org.springframework.http.server.reactive.ServerHttpRequest";

  private final MethodHandle getHeaders;
  private final MethodHandle headersFirst;
  private final MethodHandle getCookies;
  private final MethodHandle getQueryParams;
  private final MethodHandle mapFirst;
  private final MethodHandle cookieValue;

  private ReactiveRequestReader(
      MethodHandle getHeaders,
      MethodHandle headersFirst,
      MethodHandle getCookies,
      MethodHandle getQueryParams,
      MethodHandle mapFirst,
      MethodHandle cookieValue) {
    this.getHeaders = getHeaders;
    this.headersFirst = headersFirst;
    this.getCookies = getCookies;
    this.getQueryParams = getQueryParams;
    this.mapFirst = mapFirst;
    this.cookieValue = cookieValue;
  }

  static RequestReader<Object> forClass(Class<?> type) {
    Class<?> api = ServiceInstanceTags.interfaceNamed(type, REQUEST);
    if (api == null) {
      return null;
    }
    try {
      ClassLoader loader = api.getClassLoader();
      Class<?> headers = Class.forName("org.springframework.http.HttpHeaders", false, loader);
      Class<?> multiValueMap =
          Class.forName("org.springframework.util.MultiValueMap", false, loader);
      Class<?> cookie = Class.forName("org.springframework.http.HttpCookie", false, loader);
      MethodHandles.Lookup lookup = MethodHandles.publicLookup();
      MethodType toObject = MethodType.methodType(Object.class, Object.class);
      return new ReactiveRequestReader(
          lookup.findVirtual(api, "getHeaders", MethodType.methodType(headers)).asType(toObject),
          lookup
              .findVirtual(headers, "getFirst", MethodType.methodType(String.class, String.class))
              .asType(MethodType.methodType(String.class, Object.class, String.class)),
          lookup
              .findVirtual(api, "getCookies", MethodType.methodType(multiValueMap))
              .asType(toObject),
          lookup
              .findVirtual(api, "getQueryParams", MethodType.methodType(multiValueMap))
              .asType(toObject),
          lookup
              .findVirtual(
                  multiValueMap, "getFirst", MethodType.methodType(Object.class, Object.class))
              .asType(MethodType.methodType(Object.class, Object.class, Object.class)),
          lookup
              .findVirtual(cookie, "getValue", MethodType.methodType(String.class))
              .asType(MethodType.methodType(String.class, Object.class)));
    } catch (ReflectiveOperationException e) {
      return null;
    }
  }

  @Override
  public String header(Object request, String name) {
    try {
      return (String) headersFirst.invokeExact(getHeaders.invokeExact(request), name);
    } catch (Throwable t) {
      return null;
    }
  }

  @Override
  public String cookie(Object request, String name) {
    try {
      Object cookie = mapFirst.invokeExact(getCookies.invokeExact(request), (Object) name);
      return cookie == null ? null : (String) cookieValue.invokeExact(cookie);
    } catch (Throwable t) {
      return null;
    }
  }

  @Override
  public String query(Object request, String name) {
    try {
      Object value = mapFirst.invokeExact(getQueryParams.invokeExact(request), (Object) name);
      return value instanceof String ? (String) value : null;
    } catch (Throwable t) {
      return null;
    }
  }
}
