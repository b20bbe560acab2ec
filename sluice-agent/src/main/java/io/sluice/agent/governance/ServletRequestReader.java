package io.sluice.agent.governance;

import io.sluice.flow.lane.RequestReader;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * Reads a Jakarta {@code HttpServletRequest} for entry rules, through method handles looked up once
 * per request class (the agent cannot name servlet types). Query parameters are read from the raw
 * query string, never through {@code getParameter}, which would consume a form body before the
 * application reads it.
 */
final class ServletRequestReader implements RequestReader<Object> {
  private static final String REQUEST = "jakarta.servlet.http.HttpServletRequest";
  private static final String COOKIE = "jakarta.servlet.http.Cookie";

  private final MethodHandle getHeader;
  private final MethodHandle getCookies;
  private final MethodHandle getQueryString;
  private final MethodHandle cookieName;
  private final MethodHandle cookieValue;

  private ServletRequestReader(
      MethodHandle getHeader,
      MethodHandle getCookies,
      MethodHandle getQueryString,
      MethodHandle cookieName,
      MethodHandle cookieValue) {
    this.getHeader = getHeader;
    this.getCookies = getCookies;
    this.getQueryString = getQueryString;
    this.cookieName = cookieName;
    this.cookieValue = cookieValue;
  }

  /** A reader for requests of {@code type}, or null if it is not a Jakarta servlet request. */
  static RequestReader<Object> forClass(Class<?> type) {
    Class<?> api = ServiceInstanceTags.interfaceNamed(type, REQUEST);
    if (api == null) {
      return null;
    }
    try {
      Class<?> cookie = Class.forName(COOKIE, false, api.getClassLoader());
      MethodHandles.Lookup lookup = MethodHandles.publicLookup();
      MethodType objectToString = MethodType.methodType(String.class, Object.class);
      return new ServletRequestReader(
          lookup
              .findVirtual(api, "getHeader", MethodType.methodType(String.class, String.class))
              .asType(MethodType.methodType(String.class, Object.class, String.class)),
          lookup
              .findVirtual(api, "getCookies", MethodType.methodType(cookie.arrayType()))
              .asType(MethodType.methodType(Object[].class, Object.class)),
          lookup
              .findVirtual(api, "getQueryString", MethodType.methodType(String.class))
              .asType(objectToString),
          lookup
              .findVirtual(cookie, "getName", MethodType.methodType(String.class))
              .asType(objectToString),
          lookup
              .findVirtual(cookie, "getValue", MethodType.methodType(String.class))
              .asType(objectToString));
    } catch (ReflectiveOperationException e) {
      return null;
    }
  }

  @Override
  public String header(Object request, String name) {
    try {
      return (String) getHeader.invokeExact(request, name);
    } catch (Throwable t) {
      return null;
    }
  }

  @Override
  public String cookie(Object request, String name) {
    try {
      Object[] cookies = (Object[]) getCookies.invokeExact(request);
      if (cookies == null) {
        return null;
      }
      for (Object cookie : cookies) {
        if (name.equals((String) cookieName.invokeExact(cookie))) {
          return (String) cookieValue.invokeExact(cookie);
        }
      }
      return null;
    } catch (Throwable t) {
      return null;
    }
  }

  @Override
  public String query(Object request, String name) {
    try {
      return queryParameter((String) getQueryString.invokeExact(request), name);
    } catch (Throwable t) {
      return null;
    }
  }

  /** The first value of {@code name} in a raw query string ({@code a=1&b=2}), decoded; or null. */
  static String queryParameter(String query, String name) {
    if (query == null || query.isEmpty()) {
      return null;
    }
    int n = query.length();
    int i = 0;
    while (i <= n) {
      int end = query.indexOf('&', i);
      if (end < 0) {
        end = n;
      }
      int eq = query.indexOf('=', i);
      int keyEnd = eq >= 0 && eq < end ? eq : end;
      if (decode(query.substring(i, keyEnd)).equals(name)) {
        return keyEnd == end ? "" : decode(query.substring(keyEnd + 1, end));
      }
      i = end + 1;
    }
    return null;
  }

  private static String decode(String s) {
    if (s.indexOf('%') < 0 && s.indexOf('+') < 0) {
      return s;
    }
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return s;
    }
  }
}
