package io.sluice.flow.lane;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LanesTest {
  @Test
  void tagsARequestMatchingAllConditionsOfALane() throws Exception {
    Lanes lanes =
        LaneDocument.parse(
            "{\"lanes\":[{\"name\":\"a\",\"tag\":\"gray\",\"conditions\":["
                + "{\"header\":\"x-user-id\",\"oneOf\":[\"42\",\"7\"]},{\"cookie\":\"beta\",\"equals\":\"1\"}]}]}");

    assertThat(tag(lanes, new FakeRequest().header("X-User-Id", "42").cookie("beta", "1")))
        .isEqualTo("gray");
    assertThat(tag(lanes, new FakeRequest().header("x-user-id", "42"))).isNull();
    assertThat(tag(lanes, new FakeRequest().header("x-user-id", "43").cookie("beta", "1")))
        .isNull();
  }

  @Test
  void tagsARequestMatchingAnyConditionOfAnAnyOfLane() throws Exception {
    Lanes lanes =
        LaneDocument.parse(
            "{\"lanes\":[{\"name\":\"a\",\"tag\":\"gray\",\"match\":\"any\",\"conditions\":["
                + "{\"query\":\"region\",\"prefix\":\"eu-\"},{\"header\":\"ua\",\"regex\":\"An.*d\"}]}]}");

    assertThat(tag(lanes, new FakeRequest().query("region", "eu-west"))).isEqualTo("gray");
    assertThat(tag(lanes, new FakeRequest().header("ua", "Android"))).isEqualTo("gray");
    assertThat(tag(lanes, new FakeRequest().header("ua", "xAndroid"))).isNull();
    assertThat(tag(lanes, new FakeRequest().query("region", "us-east"))).isNull();
  }

  @Test
  void theFirstLaneThatTakesARequestWins() throws Exception {
    Lanes lanes =
        LaneDocument.parse(
            "{\"lanes\":[{\"name\":\"a\",\"tag\":\"first\",\"conditions\":[{\"header\":\"h\",\"equals\":\"1\"}]},"
                + "{\"name\":\"b\",\"tag\":\"second\",\"conditions\":[{\"header\":\"h\",\"prefix\":\"\"}]}]}");

    assertThat(tag(lanes, new FakeRequest().header("h", "1"))).isEqualTo("first");
    assertThat(tag(lanes, new FakeRequest().header("h", "2"))).isEqualTo("second");
  }

  @Test
  void aDisabledLaneTagsNothingAndSwitchesItsTagOffForRouting() throws Exception {
    Lanes lanes =
        LaneDocument.parse(
            "{\"lanes\":[{\"name\":\"a\",\"tag\":\"gray\",\"enabled\":false,\"percentage\":100},"
                + "{\"name\":\"b\",\"tag\":\"blue\",\"percentage\":0}]}");

    assertThat(tag(lanes, new FakeRequest())).isNull();
    assertThat(lanes.routesAsBase("gray")).isTrue();
    assertThat(lanes.routesAsBase("blue")).isFalse();
    assertThat(lanes.routesAsBase("unknown")).isFalse();
  }

  @Test
  void percentagesOfSeveralLanesAreDisjointSlicesOfOneDraw() throws Exception {
    AtomicInteger next = new AtomicInteger();
    Lanes lanes =
        LaneDocument.parse(
            "{\"lanes\":[{\"name\":\"a\",\"tag\":\"ten\",\"percentage\":10},"
                + "{\"name\":\"b\",\"tag\":\"twenty\",\"percentage\":20}]}",
            () -> next.getAndIncrement() % Lane.BUCKETS);

    int ten = 0;
    int twenty = 0;
    for (int i = 0; i < Lane.BUCKETS; i++) {
      String tag = tag(lanes, new FakeRequest());
      if ("ten".equals(tag)) {
        ten++;
      } else if ("twenty".equals(tag)) {
        twenty++;
      }
    }
    assertThat(ten).isEqualTo(1000);
    assertThat(twenty).isEqualTo(2000);
  }

  @Test
  void aStickyKeyAlwaysLandsInTheSameLaneAndSplitsUsersByTheShare() throws Exception {
    Lanes lanes =
        LaneDocument.parse(
            "{\"lanes\":[{\"name\":\"a\",\"tag\":\"gray\",\"percentage\":50,"
                + "\"stickyOn\":{\"header\":\"x-user-id\"}}]}",
            () -> {
              throw new AssertionError("a sticky request draws no random bucket");
            });

    int gray = 0;
    for (int user = 0; user < 10_000; user++) {
      FakeRequest request = new FakeRequest().header("x-user-id", "user-" + user);
      String first = tag(lanes, request);
      for (int again = 0; again < 3; again++) {
        assertThat(tag(lanes, request)).isEqualTo(first);
      }
      if ("gray".equals(first)) {
        gray++;
      }
    }
    // Binomial(10,000, 0.5): sd 50; 5 sd either way.
    assertThat(gray).isBetween(4750, 5250);
  }

  @Test
  void aStickyLaneDrawsForARequestWithoutTheKey() throws Exception {
    Lanes lanes =
        LaneDocument.parse(
            "{\"lanes\":[{\"name\":\"a\",\"tag\":\"gray\",\"percentage\":50,"
                + "\"stickyOn\":{\"cookie\":\"uid\"}}]}",
            () -> 4999);

    assertThat(tag(lanes, new FakeRequest())).isEqualTo("gray");
  }

  @Test
  void conditionsAndAShareTogetherTakeTheShareOfTheMatchingRequests() throws Exception {
    Lanes lanes =
        LaneDocument.parse(
            "{\"lanes\":[{\"name\":\"a\",\"tag\":\"gray\",\"percentage\":30,"
                + "\"conditions\":[{\"header\":\"region\",\"equals\":\"eu\"}]}]}",
            () -> 100);

    assertThat(tag(lanes, new FakeRequest().header("region", "eu"))).isEqualTo("gray");
    assertThat(tag(lanes, new FakeRequest().header("region", "us"))).isNull();
  }

  @Test
  void stickyBucketsAreStableAcrossJvmsBecauseTheyDependOnlyOnTheValue() {
    // Fixed expectations: a change here would move users between lanes on upgrade.
    assertThat(Lane.bucketOf("user-1")).isEqualTo(Lane.bucketOf("user-1"));
    assertThat(Lane.bucketOf("42")).isBetween(0, Lane.BUCKETS - 1);
    assertThat(Lane.bucketOf("user-1")).isNotEqualTo(Lane.bucketOf("user-2"));
  }

  private static String tag(Lanes lanes, FakeRequest request) {
    return lanes.entryTag(request, FakeRequest.READER);
  }
}
