package io.sluice.agent.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ListeningConfigsTest {
  @Test
  void putsTheMd5BeforeTheTenantAndEndsEveryRecord() {
    Map<ConfigKey, String> md5s = new LinkedHashMap<>();
    md5s.put(new ConfigKey("app-flow-rules", "SENTINEL_GROUP", ""), "abc");
    md5s.put(new ConfigKey("app-degrade-rules", "SENTINEL_GROUP", "prod"), "");

    assertThat(ListeningConfigs.encode(md5s))
        .isEqualTo(
            "app-flow-rules\u0002SENTINEL_GROUP\u0002abc\u0001"
                + "app-degrade-rules\u0002SENTINEL_GROUP\u0002\u0002prod\u0001");
  }

  @Test
  void decodesTheUrlEncodedListOfChangedKeys() {
    String body =
        URLEncoder.encode(
            "a-flow-rules\u0002SENTINEL_GROUP\u0001a-degrade-rules\u0002SENTINEL_GROUP\u0002prod\u0001",
            StandardCharsets.UTF_8);

    assertThat(ListeningConfigs.decodeChanged(body))
        .containsExactly(
            new ConfigKey("a-flow-rules", "SENTINEL_GROUP", ""),
            new ConfigKey("a-degrade-rules", "SENTINEL_GROUP", "prod"));
  }

  @Test
  void anEmptyBodyMeansNothingChanged() {
    assertThat(ListeningConfigs.decodeChanged("")).isEmpty();
    assertThat(ListeningConfigs.decodeChanged("\n")).isEmpty();
  }

  @Test
  void treatsPublicAsTheDefaultNamespace() {
    assertThat(new ConfigKey("d", "g", "public")).isEqualTo(new ConfigKey("d", "g", ""));
  }
}
