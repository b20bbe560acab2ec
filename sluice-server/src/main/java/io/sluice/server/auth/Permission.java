package io.sluice.server.auth;

import java.util.regex.Pattern;

/**
 * What a role may do, as Nacos stores it: a resource pattern {@code namespace:group:type/name}
 * ({@code *} matches anything, so {@code dev:*:*} is the whole namespace {@code dev}; a bare
 * namespace id means the same) and an action {@code r}, {@code w} or {@code rw}.
 */
public record Permission(String role, String resource, String action) {
  /** The resource as a pattern over {@code namespace:group:type/name}. */
  Pattern compile() {
    String normalized = normalize(resource);
    StringBuilder regex = new StringBuilder();
    int start = 0;
    for (int star = normalized.indexOf('*'); star >= 0; star = normalized.indexOf('*', start)) {
      regex.append(Pattern.quote(normalized.substring(start, star))).append(".*");
      start = star + 1;
    }
    regex.append(Pattern.quote(normalized.substring(start)));
    return Pattern.compile(regex.toString(), Pattern.DOTALL);
  }

  /**
   * A bare namespace id becomes {@code id:*:*}; the public namespace, spelled {@code ""} by 2.x
   * consoles and {@code public} by 3.x, becomes {@code public}.
   */
  static String normalize(String resource) {
    String r = resource.trim();
    if (r.indexOf(':') < 0) {
      r = r + ":*:*";
    }
    if (r.startsWith(":")) {
      r = "public" + r;
    }
    return r;
  }
}
