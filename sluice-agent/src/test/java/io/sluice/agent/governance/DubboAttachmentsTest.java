package io.sluice.agent.governance;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.agent.bootstrap.SluiceContext;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A Dubbo provider's call context, read from the attachments as Dubbo decoded them. */
class DubboAttachmentsTest {
  private final DubboAttachments attachments = new DubboAttachments();

  private static Map<String, Object> map(Object... pairs) {
    Map<String, Object> attachments = new HashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      attachments.put((String) pairs[i], pairs[i + 1]);
    }
    return attachments;
  }

  private SluiceContext contextOf(Object... pairs) {
    return attachments.contextOf(map(pairs));
  }

  /** The context as it was read before the lookups were cut: every attachment, then inbound. */
  private static SluiceContext readingEveryAttachment(Map<String, Object> attachments) {
    if (attachments == null || attachments.isEmpty()) {
      return null;
    }
    String origin =
        SluiceContext.originOf(
            string(attachments, "x-sluice-origin"), string(attachments, "dubboApplication"));
    if (origin == null) {
      origin = string(attachments, "remote.application");
    }
    return SluiceContext.inbound(
        origin,
        string(attachments, "x-sluice-lane"),
        string(attachments, "x-mse-tag"),
        string(attachments, "baggage"));
  }

  private static String string(Map<String, Object> attachments, String key) {
    Object value = attachments.get(key);
    return value instanceof String ? (String) value : null;
  }

  @Test
  void takesTheCallerFromSluiceThenSentinelThenDubbosOwnAttachment() {
    assertThat(
            contextOf(
                    "x-sluice-origin", "orders",
                    "dubboApplication", "sentinel-app",
                    "remote.application", "dubbo-app")
                .origin())
        .isEqualTo("orders");
    assertThat(
            contextOf("dubboApplication", "sentinel-app", "remote.application", "dubbo-app")
                .origin())
        .isEqualTo("sentinel-app");
    assertThat(contextOf("remote.application", "dubbo-app").origin()).isEqualTo("dubbo-app");
  }

  @Test
  void passesOverABlankOrNonStringCallerToTheNextAttachment() {
    assertThat(
            contextOf(
                    "x-sluice-origin", "",
                    "dubboApplication", "sentinel-app",
                    "remote.application", "dubbo-app")
                .origin())
        .isEqualTo("sentinel-app");
    assertThat(
            contextOf(
                    "x-sluice-origin", 7,
                    "dubboApplication", "",
                    "remote.application", "dubbo-app")
                .origin())
        .isEqualTo("dubbo-app");
    assertThat(contextOf("x-sluice-origin", "", "dubboApplication", "", "remote.application", ""))
        .isNull();
    assertThat(contextOf("remote.application", "", "x-sluice-lane", "gray").origin()).isNull();
  }

  @Test
  void sharesOneContextPerCallerForCallsWithoutALane() {
    assertThat(contextOf("x-sluice-origin", "orders"))
        .isSameAs(contextOf("x-sluice-origin", "orders", "timeout", "5000"))
        .isSameAs(readingEveryAttachment(map("x-sluice-origin", new String("orders"))));
  }

  @Test
  void sharesOneContextPerLaneForCallsInALaneFromACallerThatDoesNotNameItself() {
    SluiceContext gray = contextOf("x-sluice-lane", "gray", "timeout", "5000");

    assertThat(gray.origin()).isNull();
    assertThat(gray.lane()).isEqualTo("gray");
    assertThat(contextOf("x-sluice-lane", new String("gray"))).isSameAs(gray);
  }

  @Test
  void sharesOneContextPerCallerAndLaneForCallsFromAGovernedConsumer() {
    SluiceContext gray = contextOf("x-sluice-origin", "a", "x-sluice-lane", "gray");

    assertThat(gray)
        .isSameAs(contextOf("x-sluice-origin", "a", "x-sluice-lane", new String("gray")))
        .isSameAs(readingEveryAttachment(map("x-sluice-origin", "a", "x-sluice-lane", "gray")));
    assertThat(gray.origin()).isEqualTo("a");
    assertThat(gray.lane()).isEqualTo("gray");
    assertThat(contextOf("x-sluice-origin", "a", "x-sluice-lane", " gray ").lane())
        .isEqualTo("gray");
    assertThat(contextOf("x-sluice-origin", "a", "x-sluice-lane", "").lane()).isNull();
  }

  @Test
  void readsTheLaneInEachFormItMayArriveIn() {
    SluiceContext sluice = contextOf("x-sluice-origin", "a", "x-sluice-lane", "gray");
    assertThat(sluice.lane()).isEqualTo("gray");
    assertThat(sluice.origin()).isEqualTo("a");
    assertThat(contextOf("x-mse-tag", "blue").lane()).isEqualTo("blue");
    assertThat(contextOf("baggage", "k=v,sluice-lane=green").lane()).isEqualTo("green");
    assertThat(contextOf("x-mse-tag", "gray").outboundHeaders())
        .containsExactly("x-sluice-lane", "gray", "x-mse-tag", "gray");
  }

  @Test
  void prefersSluicesLaneThenMsesThenBaggageAndCarriesOnEveryFormThatArrived() {
    SluiceContext all =
        contextOf(
            "x-sluice-origin", "a",
            "x-sluice-lane", "gray",
            "x-mse-tag", "blue",
            "baggage", "sluice-lane=green");
    assertThat(all.origin()).isEqualTo("a");
    assertThat(all.lane()).isEqualTo("gray");
    assertThat(all.outboundHeaders())
        .containsExactly(
            "x-sluice-lane", "gray", "x-mse-tag", "gray", "baggage", "sluice-lane=green");

    SluiceContext mse =
        contextOf("x-sluice-origin", "a", "x-mse-tag", "blue", "baggage", "sluice-lane=green");
    assertThat(mse.lane()).isEqualTo("blue");
    assertThat(mse.outboundHeaders())
        .containsExactly(
            "x-sluice-lane", "blue", "x-mse-tag", "blue", "baggage", "sluice-lane=green");

    SluiceContext blankSluice =
        contextOf("x-sluice-origin", "a", "x-sluice-lane", "", "x-mse-tag", "blue");
    assertThat(blankSluice.lane()).isEqualTo("blue");

    SluiceContext baggage =
        contextOf("dubboApplication", "s", "baggage", "k=v,sluice-lane=green;p=1");
    assertThat(baggage.origin()).isEqualTo("s");
    assertThat(baggage.lane()).isEqualTo("green");

    // Baggage without a lane member names no lane and no form: the caller's shared context.
    assertThat(contextOf("x-sluice-origin", "a", "baggage", "k=v"))
        .isSameAs(contextOf("x-sluice-origin", "a"));
  }

  @Test
  void ignoresAttachmentsThatAreNotStringsAndCallsThatCarryNothing() {
    assertThat(contextOf("x-sluice-origin", 42, "x-sluice-lane", new Object())).isNull();
    assertThat(contextOf("timeout", "5000")).isNull();
    assertThat(attachments.contextOf(Map.of())).isNull();
    assertThat(attachments.contextOf(null)).isNull();
  }

  @Test
  void answersWhatReadingEveryAttachmentAnsweredForAnyMixOfAttachments() {
    String[] keys = {
      "x-sluice-origin",
      "dubboApplication",
      "remote.application",
      "x-sluice-lane",
      "x-mse-tag",
      "baggage"
    };
    Object[][] values = {
      {null, "", "a", "b", "orders", 42},
      {null, "", "s", "a"},
      {null, "", "d", "a"},
      {null, "", "gray", " gray", "base", "blue", new Object()},
      {null, "", "blue"},
      {null, "", "k=v", "sluice-lane=green", "k=v,sluice-lane=gray"}
    };
    Random random = new Random(16);
    for (int i = 0; i < 5_000; i++) {
      Map<String, Object> call = new HashMap<>();
      call.put("path", "com.example.B");
      for (int k = 0; k < keys.length; k++) {
        Object value = values[k][random.nextInt(values[k].length)];
        if (value instanceof String) {
          value = new String((String) value); // decoded from the wire: never the same object
        }
        if (value != null) {
          call.put(keys[k], value);
        }
      }

      SluiceContext expected = readingEveryAttachment(call);
      SluiceContext actual = attachments.contextOf(call);

      if (expected == null) {
        assertThat(actual).as(call.toString()).isNull();
        continue;
      }
      assertThat(actual).as(call.toString()).isNotNull();
      assertThat(actual.origin()).as(call.toString()).isEqualTo(expected.origin());
      assertThat(actual.lane()).as(call.toString()).isEqualTo(expected.lane());
      assertThat(actual.entrance()).as(call.toString()).isNull();
      assertThat(actual.outboundHeaders())
          .as(call.toString())
          .isEqualTo(expected.outboundHeaders());
      if (readingEveryAttachment(call) == expected) {
        assertThat(actual).as("the shared context of " + call).isSameAs(expected);
      }
    }
  }

  @Test
  void callersAndLanesWhoseMemoSlotsCollideEachGetTheirOwnContext() {
    // Pairs of (caller, lane) that index the same memo slot, called in turn: other callers, the
    // same caller in other lanes, and the same caller without a lane.
    List<String[]> colliding = new ArrayList<>();
    colliding.add(new String[] {"a", null});
    int wanted = slotOf("a", null);
    int sameCaller = 0;
    int otherCallers = 0;
    for (int i = 0; sameCaller < 2 || otherCallers < 2; i++) {
      String lane = "lane-" + i;
      if (sameCaller < 2 && slotOf("a", lane) == wanted) {
        colliding.add(new String[] {"a", lane});
        sameCaller++;
      }
      String origin = "app-" + i;
      String otherLane = i % 2 == 0 ? null : lane;
      if (otherCallers < 2 && slotOf(origin, otherLane) == wanted) {
        colliding.add(new String[] {origin, otherLane});
        otherCallers++;
      }
    }

    for (int pass = 0; pass < 5; pass++) {
      for (String[] pair : colliding) {
        SluiceContext context =
            pair[1] == null
                ? contextOf("x-sluice-origin", new String(pair[0]))
                : contextOf("x-sluice-origin", new String(pair[0]), "x-sluice-lane", pair[1]);
        assertThat(context.origin()).isEqualTo(pair[0]);
        assertThat(context.lane()).isEqualTo(pair[1]);
        assertThat(context)
            .isSameAs(SluiceContext.inbound(new String(pair[0]), pair[1], null, null));
        // The same call again, now that the memo holds it.
        assertThat(
                pair[1] == null
                    ? contextOf("x-sluice-origin", pair[0])
                    : contextOf("x-sluice-origin", pair[0], "x-sluice-lane", pair[1]))
            .isSameAs(context);
      }
    }
  }

  private static int slotOf(String origin, String lane) {
    return (31 * origin.hashCode() + (lane == null ? 0 : lane.hashCode()))
        & (DubboAttachments.SLOTS - 1);
  }

  @Test
  void readingACallFromAGovernedCallerAllocatesNothingWithOrWithoutItsLane() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long thread = Thread.currentThread().getId();
    List<Map<String, Object>> calls =
        List.of(
            map("x-sluice-origin", "a", "remote.application", "a", "timeout", "5000"),
            map("x-sluice-origin", "a", "x-sluice-lane", "gray", "remote.application", "a"),
            map("x-sluice-origin", "a", "x-sluice-lane", "base"),
            map("remote.application", "c", "timeout", "5000"));
    Object[] sink = new Object[calls.size()];
    for (int i = 0; i < 200_000; i++) {
      sink[i & 3] = attachments.contextOf(calls.get(i & 3));
    }

    long before = threads.getThreadAllocatedBytes(thread);
    for (int i = 0; i < 100_000; i++) {
      sink[i & 3] = attachments.contextOf(calls.get(i & 3));
    }
    long allocated = threads.getThreadAllocatedBytes(thread) - before;

    assertThat(allocated).as("bytes allocated by 100,000 calls").isLessThan(64 * 1024);
  }
}
