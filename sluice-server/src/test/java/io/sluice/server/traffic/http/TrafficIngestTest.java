package io.sluice.server.traffic.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.server.protocol.http.FormValue;
import io.sluice.server.protocol.http.HttpApiException;
import io.sluice.server.testing.ManualClock;
import io.sluice.server.traffic.TrafficStore;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Reading agents' reports from the request's bytes: the agent's own encoding (JSON structure as it
 * is, strings JSON-escaped then form-escaped where the form format needs it) and a client that
 * form-encodes all of the JSON are both taken; anything else is refused whole with the field named,
 * and the store does not change.
 */
class TrafficIngestTest {
  private final ManualClock clock = new ManualClock();
  private final TrafficStore store = new TrafficStore(clock);
  private final TrafficIngest ingest = new TrafficIngest(store);

  /**
   * A name with everything the agent escapes: a space, % & + =, a quote, a backslash, é, \u0001.
   */
  private static final String AWKWARD = "GET /a b%&+=\"\\é\u0001";

  /** {@link #AWKWARD} as sluice-agent's {@code FormJson.string} writes it. */
  private static final String AWKWARD_AS_THE_AGENT_WRITES_IT =
      "\"GET+/a+b%25%26%2B%3D\\\"\\\\%C3%A9\\u0001\"";

  private long secondStart() {
    return Math.floorDiv(clock.currentTimeMillis(), 1000) * 1000 - 1000;
  }

  /** A report body's {@code report} value as the agent writes it: structure raw, names escaped. */
  private String agentReport() {
    return "{\"app\":\"orders\",\"instance\":\"4242@host\",\"lane\":\"gray\",\"sentAt\":"
        + clock.currentTimeMillis()
        + ",\"dropped\":3,\"seen\":[{\"name\":"
        + AWKWARD_AS_THE_AGENT_WRITES_IT
        + ",\"kind\":\"Spring+MVC+route\"}],\"seconds\":[{\"t\":"
        + secondStart()
        + ",\"resources\":[{\"name\":"
        + AWKWARD_AS_THE_AGENT_WRITES_IT
        + ",\"pass\":10,\"block\":2,\"failed\":1,\"rt\":850,\"p50\":700,\"p99\":2100,"
        + "\"concurrency\":4},{\"name\":\"GET+/idle\",\"pass\":0,\"block\":0,\"failed\":0,"
        + "\"concurrency\":0}]}]}";
  }

  /** Posts {@code body} (a whole form body) as the route hands it over: the field's bytes. */
  private void post(String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    int from = body.indexOf("report=") + "report=".length();
    int to = body.indexOf('&', from) < 0 ? bytes.length : body.indexOf('&', from);
    ingest.accept(FormValue.encoded(bytes, from, to));
  }

  @Test
  void takesTheReportAsTheAgentEncodesIt() {
    post("report=" + agentReport());

    assertTheAwkwardResourceIsStored();
    assertThat(store.app("orders").instances())
        .singleElement()
        .satisfies(
            i -> {
              assertThat(i.lane()).isEqualTo("gray");
              assertThat(i.droppedByAgent()).isEqualTo(3);
              assertThat(i.series()).isEqualTo(2);
            });
  }

  @Test
  void takesTheReportFromAClientThatFormEncodesAllOfTheJson() {
    String json =
        "{\"app\":\"orders\",\"instance\":\"4242@host\",\"lane\":\"gray\",\"sentAt\":"
            + clock.currentTimeMillis()
            + ",\"dropped\":3,\"seen\":[{\"name\":"
            + jsonString(AWKWARD)
            + ",\"kind\":\"Spring MVC route\"}],\"seconds\":[{\"t\":"
            + secondStart()
            + ",\"resources\":[{\"name\":"
            + jsonString(AWKWARD)
            + ",\"pass\":10,\"block\":2,\"failed\":1,\"rt\":850,\"p50\":700,\"p99\":2100,"
            + "\"concurrency\":4}]}]}";

    post("accessToken=t&report=" + URLEncoder.encode(json, StandardCharsets.UTF_8) + "&x=1");

    assertTheAwkwardResourceIsStored();
  }

  @Test
  void readsFieldsInAnyOrderSkipsUnknownOnesAndTakesNullTimesAsUntimed() {
    String json =
        "{ \"seconds\" : [ { \"resources\" : [ { \"p99\" : null, \"future\" : {\"a\":[1,2]},"
            + " \"pass\" : 5, \"name\" : \"GET /x\" } ], \"t\" : "
            + secondStart()
            + " } ], \"sentAt\" : "
            + clock.currentTimeMillis()
            + ", \"instance\" : \"1@a\", \"app\" : \"shop\", \"extra\" : [ ] }";

    post("report=" + URLEncoder.encode(json, StandardCharsets.UTF_8));

    TrafficStore.Point x = store.resources("shop").get(0).lastSecond();
    assertThat(x.pass()).isEqualTo(5);
    assertThat(x.avgRtMicros()).isEqualTo(-1);
    assertThat(x.p99RtMicros()).isEqualTo(-1);
  }

  @Test
  void aLaterReportFindsEachSeriesByItsNameAndAddsNewOnes() {
    post("report=" + agentReport());
    clock.advance(java.time.Duration.ofSeconds(1));
    String next =
        "{\"app\":\"orders\",\"instance\":\"4242@host\",\"sentAt\":"
            + clock.currentTimeMillis()
            + ",\"seconds\":[{\"t\":"
            + secondStart()
            + ",\"resources\":[{\"name\":\"GET+/new\",\"pass\":7},{\"name\":"
            + AWKWARD_AS_THE_AGENT_WRITES_IT
            + ",\"pass\":20}]}]}";

    post("report=" + next);

    assertThat(store.seriesCount()).isEqualTo(3);
    List<TrafficStore.Point> awkward = store.series("orders", AWKWARD, null);
    assertThat(awkward).extracting(TrafficStore.Point::pass).containsExactly(10, 20);
    assertThat(store.series("orders", "GET /new", null))
        .extracting(TrafficStore.Point::pass)
        .containsExactly(7);
  }

  @Test
  void refusesWhatIsNotAnAgentsReportNamingTheFieldAndStoresNothing() {
    long now = clock.currentTimeMillis();
    String head = "{\"app\":\"a\",\"instance\":\"i\",\"sentAt\":" + now;
    String second = ",\"seconds\":[{\"t\":" + secondStart() + ",\"resources\":[";
    assertRefused("not+json", "report is not JSON");
    assertRefused("[1,2]", "report must be a JSON object");
    assertRefused(head + "}{}", "unexpected content after");
    assertRefused(head + "}+garbage", "report is not JSON");
    assertRefused("{\"instance\":\"i\",\"sentAt\":1}", "'app' is required");
    assertRefused("{\"app\":\"+\",\"instance\":\"i\",\"sentAt\":1}", "'app' must not be blank");
    assertRefused("{\"app\":7,\"instance\":\"i\",\"sentAt\":1}", "'app' must be a string");
    assertRefused("{\"app\":\"a\",\"instance\":\"i\"}", "'sentAt' must be an integer");
    assertRefused("{\"app\":\"a\",\"instance\":\"i\",\"sentAt\":1.5}", "'sentAt' must be");
    assertRefused(head + ",\"seconds\":{}}", "'seconds' must be an array");
    assertRefused(head + ",\"seconds\":[1]}", "each of 'seconds' must be an object");
    assertRefused(head + ",\"seconds\":[{\"resources\":[]}]}", "'t' must be an integer");
    assertRefused(head + second + "{\"pass\":1}]}]}", "'name' is required");
    assertRefused(head + second + "{\"name\":\"+\"}]}]}", "'name' must not be blank");
    assertRefused(head + second + "{\"name\":\"x\",\"pass\":-1}]}]}", "'pass' must be a non-neg");
    assertRefused(head + second + "{\"name\":\"x\",\"block\":1.0}]}]}", "'block' must be a non");
    assertRefused(
        head + second + "{\"name\":\"x\",\"pass\":3000000000}]}]}", "'pass' must be a non");
    assertRefused(head + second + "{\"name\":\"x\",\"rt\":\"slow\"}]}]}", "'rt' must be an int");
    assertRefused(
        head + second + "{\"name\":\"" + "n".repeat(513) + "\"}]}]}", "'name' is longer than 512");
    assertRefused(head + second + "{\"name\":\"x\"}]}]%G1", "'%G1' is not an escape");
    assertRefused(head + second + "{\"name\":\"x%FF\"}]}]}", "report is not JSON");
    StringBuilder seconds = new StringBuilder(head + ",\"seconds\":[");
    for (int i = 0; i < 31; i++) {
      seconds.append(i == 0 ? "" : ",").append("{\"t\":").append(i * 1000).append('}');
    }
    assertRefused(seconds + "]}", "'seconds' has more than 30 entries");
    // A good second before the bad one is not kept either.
    assertRefused(
        head + second + "{\"name\":\"good\",\"pass\":1},{\"name\":\"bad\",\"pass\":-1}]}]}",
        "'pass' must be a non-negative integer");

    assertThat(store.apps()).isEmpty();
    assertThat(store.seriesCount()).isZero();
    assertThat(store.reports()).isZero();
  }

  private void assertRefused(String report, String message) {
    assertThatThrownBy(() -> post("report=" + report))
        .as(report)
        .isInstanceOfSatisfying(HttpApiException.class, e -> assertThat(e.status()).isEqualTo(400))
        .hasMessageContaining(message);
  }

  private void assertTheAwkwardResourceIsStored() {
    List<TrafficStore.ResourceView> resources = store.resources("orders");
    assertThat(resources).extracting(TrafficStore.ResourceView::name).contains(AWKWARD);
    TrafficStore.ResourceView awkward =
        resources.stream().filter(r -> r.name().equals(AWKWARD)).findFirst().orElseThrow();
    assertThat(awkward.kind()).isEqualTo("Spring MVC route");
    TrafficStore.Point p = awkward.lastSecond();
    assertThat(p.pass()).isEqualTo(10);
    assertThat(p.block()).isEqualTo(2);
    assertThat(p.failed()).isEqualTo(1);
    assertThat(p.avgRtMicros()).isEqualTo(850);
    assertThat(p.p50RtMicros()).isEqualTo(700);
    assertThat(p.p99RtMicros()).isEqualTo(2100);
    assertThat(p.concurrency()).isEqualTo(4);
  }

  private static String jsonString(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\u0001", "\\u0001") + "\"";
  }
}
