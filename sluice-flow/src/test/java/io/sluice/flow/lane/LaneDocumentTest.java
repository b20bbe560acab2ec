package io.sluice.flow.lane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LaneDocumentTest {
  @Test
  void readsEveryPartOfALane() throws Exception {
    Lanes lanes =
        LaneDocument.parse(
            "{\"lanes\":[{\"name\":\"gray-users\",\"tag\":\"gray\",\"enabled\":true,"
                + "\"match\":\"any\",\"conditions\":[{\"header\":\"X-User-Id\",\"oneOf\":[\"42\",\"7\"]},"
                + "{\"cookie\":\"beta\",\"equals\":\"1\"},{\"query\":\"region\",\"prefix\":\"eu-\"},"
                + "{\"header\":\"user-agent\",\"regex\":\".*Android.*\"}]},"
                + "{\"name\":\"half\",\"tag\":\"blue\",\"percentage\":12.5,"
                + "\"stickyOn\":{\"header\":\"x-user-id\"}}]}");

    assertThat(lanes.lanes()).hasSize(2);
    Lane first = lanes.lanes().get(0);
    assertThat(first.name()).isEqualTo("gray-users");
    assertThat(first.tag()).isEqualTo("gray");
    assertThat(first.conditions()).hasSize(4);
    assertThat(first.conditions().get(0).name()).isEqualTo("x-user-id");
    assertThat(lanes.lanes().get(1).shareBuckets()).isEqualTo(1250);
    assertThat(lanes.hasEntryRules()).isTrue();
  }

  @Test
  void describesEachLaneInOneLineForPeople() throws Exception {
    Lanes lanes =
        LaneDocument.parse(
            "{\"lanes\":[{\"name\":\"beta\",\"tag\":\"gray\",\"match\":\"any\","
                + "\"conditions\":[{\"header\":\"X-User-Id\",\"oneOf\":[\"42\"]},"
                + "{\"cookie\":\"beta\",\"equals\":\"1\"}]},"
                + "{\"name\":\"half\",\"tag\":\"blue\",\"percentage\":12.5,"
                + "\"stickyOn\":{\"header\":\"x-user-id\"}},"
                + "{\"name\":\"off\",\"tag\":\"red\",\"enabled\":false,\"percentage\":5},"
                + "{\"name\":\"routed\",\"tag\":\"green\"}]}");

    assertThat(lanes.describeLanes())
        .containsExactly(
            "beta -> gray: requests that match any of [header x-user-id ONE_OF [42],"
                + " cookie beta EQUALS 1]",
            "half -> blue: 12.5 % of requests, sticky on header x-user-id",
            "off -> red: disabled (requests still carrying its tag are routed as base)",
            "routed -> green: takes nothing at the entry, routes requests that carry its tag");
  }

  @Test
  void treatsAnEmptyDocumentAsNoLanes() throws Exception {
    assertThat(LaneDocument.parse("").lanes()).isEmpty();
    assertThat(LaneDocument.parse(null).hasEntryRules()).isFalse();
    assertThat(LaneDocument.parse("{\"lanes\":[]}").lanes()).isEmpty();
  }

  @Test
  void rejectsTheWholeDocumentNamingTheLaneAndTheFault() {
    assertRejected("{\"lanes\": [", "not JSON");
    assertRejected("[]", "expected an object");
    assertRejected("{\"lane\":[]}", "unknown member 'lane'");
    assertRejected("{\"lanes\":[{\"tag\":\"gray\"}]}", "lanes[0]: 'name' is missing");
    assertRejected(
        "{\"lanes\":[{\"name\":\"a\",\"tag\":\"gray\",\"precentage\":5}]}",
        "lanes[0] (a): unknown member 'precentage'");
    assertRejected(
        "{\"lanes\":[{\"name\":\"a\",\"tag\":\"gr ay\"}]}", "lanes[0] (a): tag 'gr ay' must be");
    assertRejected(
        "{\"lanes\":[{\"name\":\"a\",\"tag\":\"g\",\"conditions\":[{\"header\":\"h\",\"startsWith\":\"x\"}]}]}",
        "lanes[0] (a) conditions[0]: unknown member 'startsWith'");
    assertRejected(
        "{\"lanes\":[{\"name\":\"a\",\"tag\":\"g\",\"conditions\":[{\"header\":\"h\",\"regex\":\"(\"}]}]}",
        "'regex' is not a valid regular expression");
    assertRejected(
        "{\"lanes\":[{\"name\":\"a\",\"tag\":\"g\",\"conditions\":[{\"equals\":\"x\"}]}]}",
        "needs one of [cookie, header, query]");
    assertRejected(
        "{\"lanes\":[{\"name\":\"a\",\"tag\":\"g\",\"percentage\":101}]}",
        "'percentage' must be between 0 and 100");
    assertRejected(
        "{\"lanes\":[{\"name\":\"a\",\"tag\":\"g\",\"percentage\":60},"
            + "{\"name\":\"b\",\"tag\":\"h\",\"percentage\":50}]}",
        "lanes[1] (b): the percentages of the lanes add up to 110 %");
    assertRejected(
        "{\"lanes\":[{\"name\":\"a\",\"tag\":\"g\"},{\"name\":\"a\",\"tag\":\"h\"}]}",
        "lanes[1]: the name 'a' is used by an earlier lane");
    assertRejected(
        "{\"lanes\":[{\"name\":\"a\",\"tag\":\"g\",\"stickyOn\":{\"header\":\"u\"}}]}",
        "'stickyOn' needs a 'percentage'");
    assertRejected(
        "{\"lanes\":[{\"name\":\"a\",\"tag\":\"g\",\"match\":\"some\"}]}",
        "'match' must be \"all\" or \"any\"");
  }

  private static void assertRejected(String document, String message) {
    assertThatThrownBy(() -> LaneDocument.parse(document))
        .isInstanceOf(InvalidLanesException.class)
        .hasMessageContaining(message);
  }
}
