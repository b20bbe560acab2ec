package io.sluice.agent.rules;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The wire format of Nacos's HTTP v1 long-poll listener ({@code POST
 * /nacos/v1/cs/configs/listener}). The request's {@code Listening-Configs} form field holds one
 * record per watched config, {@code dataId ^2 group ^2 md5 [^2 tenant] ^1} (^2 = U+0002, ^1 =
 * U+0001; the md5 comes before the tenant, and is empty for a config that does not exist yet). The
 * response body is the URL-encoded list of changed keys, {@code dataId ^2 group [^2 tenant] ^1}.
 */
final class ListeningConfigs {
  static final char WORD_SEPARATOR = '\u0002';
  static final char LINE_SEPARATOR = '\u0001';

  private ListeningConfigs() {}

  /** The {@code Listening-Configs} value (before form encoding) for these keys and their md5s. */
  static String encode(Map<ConfigKey, String> md5ByKey) {
    StringBuilder out = new StringBuilder();
    for (Map.Entry<ConfigKey, String> entry : md5ByKey.entrySet()) {
      ConfigKey key = entry.getKey();
      out.append(key.dataId()).append(WORD_SEPARATOR).append(key.group()).append(WORD_SEPARATOR);
      out.append(entry.getValue() == null ? "" : entry.getValue());
      if (!key.tenant().isEmpty()) {
        out.append(WORD_SEPARATOR).append(key.tenant());
      }
      out.append(LINE_SEPARATOR);
    }
    return out.toString();
  }

  /** The keys a listener response names as changed; empty for an empty body (timeout). */
  static List<ConfigKey> decodeChanged(String body) {
    List<ConfigKey> changed = new ArrayList<>();
    if (body == null || body.isBlank()) {
      return changed;
    }
    String decoded = URLDecoder.decode(body.trim(), StandardCharsets.UTF_8);
    for (String record : decoded.split(String.valueOf(LINE_SEPARATOR))) {
      if (record.isEmpty()) {
        continue;
      }
      String[] parts = record.split(String.valueOf(WORD_SEPARATOR), -1);
      if (parts.length < 2) {
        continue;
      }
      changed.add(new ConfigKey(parts[0], parts[1], parts.length > 2 ? parts[2] : ""));
    }
    return changed;
  }
}
