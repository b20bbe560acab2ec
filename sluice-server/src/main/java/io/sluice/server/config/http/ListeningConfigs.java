package io.sluice.server.config.http;

import io.sluice.server.config.ConfigKey;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code Listening-Configs} wire format of Nacos's HTTP long-poll, both ways.
 *
 * <p>Request: records {@code dataId ^2 group ^2 md5 [^2 tenant] ^1}, where {@code ^2} is U+0002 and
 * {@code ^1} U+0001; the md5 comes <em>before</em> the tenant. A record without a tenant is in the
 * public namespace. At most {@value #MAX_KEYS} distinct configs per request.
 *
 * <p>Response: the changed configs as {@code dataId ^2 group [^2 tenant] ^1}, URL-encoded; the
 * tenant is written as the client spelled it, and left out for the public namespace unless the
 * client called it {@code "public"}.
 */
final class ListeningConfigs {
  static final int MAX_KEYS = 10_000;
  static final char WORD_SEPARATOR = '\u0002';
  static final char LINE_SEPARATOR = '\u0001';

  private ListeningConfigs() {}

  /**
   * One listened config.
   *
   * @param spelledPublic the client named the public namespace {@code "public"} (3.x style)
   */
  record Listen(ConfigKey key, String md5, boolean spelledPublic) {}

  /** Thrown for a value that is not in the format; the request is refused with a 400. */
  static final class MalformedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    MalformedException(String message) {
      super(message, null, false, false);
    }
  }

  /** Parses a decoded {@code Listening-Configs} value; a config listed twice counts once. */
  static List<Listen> parse(String value) {
    Map<ConfigKey, Listen> listens = new LinkedHashMap<>();
    List<String> fields = new ArrayList<>(4);
    int start = 0;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == WORD_SEPARATOR) {
        fields.add(value.substring(start, i));
        start = i + 1;
        if (fields.size() > 3) {
          throw new MalformedException("a record has more than four fields");
        }
      } else if (c == LINE_SEPARATOR) {
        String last = value.substring(start, i);
        start = i + 1;
        if (fields.size() < 2) {
          throw new MalformedException("a record has fewer than three fields");
        }
        String md5;
        String tenant;
        if (fields.size() == 2) {
          md5 = last;
          tenant = "";
        } else {
          md5 = fields.get(2);
          tenant = last;
        }
        ConfigKey key = ConfigKey.of(tenant, fields.get(1), fields.get(0));
        listens.put(key, new Listen(key, md5, "public".equals(tenant)));
        fields.clear();
        if (listens.size() > MAX_KEYS) {
          throw new MalformedException("more than " + MAX_KEYS + " configs listened at once");
        }
      }
    }
    return List.copyOf(listens.values());
  }

  /** The changed configs, URL-encoded: the body of a long-poll answer (before its newline). */
  static String encode(Collection<Listen> changed) {
    if (changed.isEmpty()) {
      return "";
    }
    StringBuilder records = new StringBuilder();
    for (Listen listen : changed) {
      appendRecord(records, listen.key(), listen.spelledPublic());
    }
    return URLEncoder.encode(records.toString(), StandardCharsets.UTF_8);
  }

  static String encode(ConfigKey key, boolean spelledPublic) {
    StringBuilder record = new StringBuilder();
    appendRecord(record, key, spelledPublic);
    return URLEncoder.encode(record.toString(), StandardCharsets.UTF_8);
  }

  /** The pre-2.0.4 answer of a short poll: {@code dataId:group;} per changed config. */
  static String encodeOldStyle(Collection<Listen> changed) {
    StringBuilder result = new StringBuilder();
    for (Listen listen : changed) {
      result.append(listen.key().dataId()).append(':').append(listen.key().group()).append(';');
    }
    return result.toString();
  }

  private static void appendRecord(StringBuilder out, ConfigKey key, boolean spelledPublic) {
    out.append(key.dataId()).append(WORD_SEPARATOR).append(key.group());
    String tenant = spelledPublic ? "public" : key.namespace();
    if (!tenant.isEmpty()) {
      out.append(WORD_SEPARATOR).append(tenant);
    }
    out.append(LINE_SEPARATOR);
  }
}
