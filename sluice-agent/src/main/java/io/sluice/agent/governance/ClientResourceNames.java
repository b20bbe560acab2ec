package io.sluice.agent.governance;

import java.net.URI;

/**
 * Names an outbound HTTP call as a resource: {@code "METHOD host[:port]/path"}, e.g. {@code "GET
 * orders.internal:8080/orders/{id}"}. The path is the caller's URI template when the client knows
 * it and it has variables; otherwise the sent path with identifier-like segments (all digits,
 * UUIDs, long hex strings) collapsed to {@code {id}}, so one endpoint stays one resource however
 * many ids it is called with. The port is left out when the URI has none (a call through a load
 * balancer is named by its logical URI, {@code http://service/...}: no port).
 */
final class ClientResourceNames {
  static final String ID = "{id}";

  private ClientResourceNames() {}

  static String of(String method, URI uri, String uriTemplate) {
    String host = uri.getHost();
    if (host == null) {
      host = uri.getAuthority() == null ? "" : uri.getAuthority();
    }
    StringBuilder name = new StringBuilder(64).append(method).append(' ').append(host);
    if (uri.getPort() >= 0) {
      name.append(':').append(uri.getPort());
    }
    String templatePath = uriTemplate == null ? null : pathOfTemplate(uriTemplate);
    // A "template" without variables is just the URL the caller wrote (RestTemplate passes it on
    // either way): normalise it like a sent path.
    if (templatePath != null && templatePath.indexOf('{') >= 0) {
      name.append(templatePath);
    } else {
      appendNormalisedPath(name, uri.getRawPath());
    }
    return name.toString();
  }

  /** The path part of a URI template, without query and fragment; null if it has none. */
  static String pathOfTemplate(String template) {
    int start;
    int scheme = template.indexOf("://");
    if (scheme >= 0) {
      start = template.indexOf('/', scheme + 3);
      if (start < 0) {
        return "/";
      }
    } else if (template.startsWith("/")) {
      start = 0;
    } else {
      return null;
    }
    int end = template.length();
    int query = template.indexOf('?', start);
    if (query >= 0) {
      end = query;
    }
    int fragment = template.indexOf('#', start);
    if (fragment >= 0 && fragment < end) {
      end = fragment;
    }
    return template.substring(start, end);
  }

  static void appendNormalisedPath(StringBuilder out, String rawPath) {
    if (rawPath == null || rawPath.isEmpty()) {
      out.append('/');
      return;
    }
    int i = 0;
    int n = rawPath.length();
    while (i < n) {
      int slash = rawPath.indexOf('/', i);
      if (slash == i) {
        out.append('/');
        i++;
        continue;
      }
      int end = slash < 0 ? n : slash;
      if (isIdentifier(rawPath, i, end)) {
        out.append(ID);
      } else {
        out.append(rawPath, i, end);
      }
      i = end;
    }
  }

  static boolean isIdentifier(String s, int from, int to) {
    int length = to - from;
    if (length == 0) {
      return false;
    }
    boolean allDigits = true;
    boolean allHexOrDash = true;
    boolean hasDigit = false;
    int dashes = 0;
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      boolean digit = c >= '0' && c <= '9';
      boolean hex = digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
      hasDigit |= digit;
      allDigits &= digit;
      if (c == '-') {
        dashes++;
      } else if (!hex) {
        allHexOrDash = false;
      }
    }
    if (allDigits) {
      return true;
    }
    // A UUID (36 chars, 4 dashes) or a long hex id such as an object id or a hash.
    return allHexOrDash
        && hasDigit
        && ((length == 36 && dashes == 4) || (dashes == 0 && length >= 16));
  }
}
