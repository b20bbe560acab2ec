package io.sluice.server.protocol.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FormDecoderTest {
  private static Map<String, String> decode(String form) {
    Map<String, String> values = new LinkedHashMap<>();
    FormDecoder.decode(form.getBytes(StandardCharsets.ISO_8859_1), values, 0);
    return values;
  }

  @Test
  void decodesPlusAsSpaceAndEscapesAsUtf8() {
    assertThat(decode("content=a+b%20c%E9%85%8D%E7%BD%AE&dataId=x"))
        .containsExactly(Map.entry("content", "a b c配置"), Map.entry("dataId", "x"));
  }

  @Test
  void keepsTheFirstValueOfANameAndTakesBareNamesAsEmpty() {
    assertThat(decode("a=1&a=2&flag&&b="))
        .containsExactly(Map.entry("a", "1"), Map.entry("flag", ""), Map.entry("b", ""));
  }

  @Test
  void refusesBrokenEscapesAndInvalidUtf8() {
    for (String malformed : new String[] {"a=%zz", "a=%4", "a=%", "a=%C3%28", "%ff=1"}) {
      assertThatThrownBy(() -> decode(malformed))
          .as(malformed)
          .isInstanceOfSatisfying(
              HttpApiException.class, e -> assertThat(e.status()).isEqualTo(400));
    }
  }

  @Test
  void refusesMoreParametersThanTomcatWould() {
    StringBuilder form = new StringBuilder();
    for (int i = 0; i <= FormDecoder.MAX_PARAMETERS; i++) {
      form.append("p").append(i).append("=1&");
    }

    assertThatThrownBy(() -> decode(form.toString())).isInstanceOf(HttpApiException.class);
  }
}
