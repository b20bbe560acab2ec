package io.sluice.server.config.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.server.config.ConfigKey;
import io.sluice.server.config.http.ListeningConfigs.Listen;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ListeningConfigsTest {
  @Test
  void readsRecordsWithAndWithoutATenantTheMd5ComingBeforeIt() {
    List<Listen> listens =
        ListeningConfigs.parse(
            "app.yaml\u0002DEFAULT_GROUP\u0002abc\u0001"
                + "db.yaml\u0002G\u0002def\u0002dev\u0001"
                + "pub.yaml\u0002G\u0002\u0002public\u0001");

    assertThat(listens)
        .containsExactly(
            new Listen(ConfigKey.of("", "DEFAULT_GROUP", "app.yaml"), "abc", false),
            new Listen(ConfigKey.of("dev", "G", "db.yaml"), "def", false),
            new Listen(ConfigKey.of("", "G", "pub.yaml"), "", true));
  }

  @Test
  void countsAConfigListedTwiceOnceAndIgnoresAnUnterminatedTail() {
    assertThat(ListeningConfigs.parse("a\u0002G\u0002x\u0001a\u0002G\u0002y\u0001b\u0002G"))
        .containsExactly(new Listen(ConfigKey.of("", "G", "a"), "y", false));
  }

  @Test
  void refusesRecordsWithTooFewOrTooManyFields() {
    assertThatThrownBy(() -> ListeningConfigs.parse("a\u0002b\u0001"))
        .isInstanceOf(ListeningConfigs.MalformedException.class);
    assertThatThrownBy(() -> ListeningConfigs.parse("a\u0002b\u0002c\u0002d\u0002e\u0001"))
        .isInstanceOf(ListeningConfigs.MalformedException.class);
  }

  @Test
  void writesChangedConfigsUrlEncodedWithTheTenantAsTheClientSpelledIt() {
    String encoded =
        ListeningConfigs.encode(
            List.of(
                new Listen(ConfigKey.of("", "G", "a b"), "", false),
                new Listen(ConfigKey.of("dev", "G", "c"), "", false),
                new Listen(ConfigKey.of("", "G", "d"), "", true)));

    assertThat(encoded).doesNotContain("\u0001").doesNotContain(" ");
    assertThat(URLDecoder.decode(encoded, StandardCharsets.UTF_8))
        .isEqualTo("a b\u0002G\u0001c\u0002G\u0002dev\u0001d\u0002G\u0002public\u0001");
  }

  @Test
  void holdsForTheTimeoutLessHalfASecondWithinItsBounds() {
    assertThat(ListenerRoutes.holdMillis("30000")).isEqualTo(29_500);
    assertThat(ListenerRoutes.holdMillis("100")).isEqualTo(10_000);
    assertThat(ListenerRoutes.holdMillis("-5")).isEqualTo(10_000);
    assertThat(ListenerRoutes.holdMillis("99999999")).isEqualTo(ListenerRoutes.MAX_HOLD_MILLIS);
  }
}
