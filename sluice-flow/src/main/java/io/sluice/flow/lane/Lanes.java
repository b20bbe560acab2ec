package io.sluice.flow.lane;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntSupplier;

/**
 * The lanes in force: a compiled lane document. It answers the two questions the agent asks per
 * request: at the entry, which tag an untagged request gets ({@link #entryTag}); and when routing,
 * whether a request's tag has been switched off ({@link #routesAsBase}). Immutable; replaced whole
 * when a new document is applied. Evaluating allocates nothing beyond what the reader does.
 *
 * <p>Lanes are tried in document order and the first that takes the request wins, so order is
 * precedence.
 */
public final class Lanes {
  /** No lanes: no request is tagged at the entry, every tag routes to its instances. */
  public static final Lanes NONE = new Lanes(List.of(), () -> 0);

  private final List<Lane> lanes;
  private final Lane[] entryLanes;
  private final Set<String> switchedOffTags;
  private final IntSupplier randomBucket;

  Lanes(List<Lane> lanes, IntSupplier randomBucket) {
    this.lanes = List.copyOf(lanes);
    List<Lane> entry = new ArrayList<>();
    Set<String> enabledTags = new HashSet<>();
    Set<String> disabledTags = new HashSet<>();
    for (Lane lane : lanes) {
      if (lane.takesEntryTraffic()) {
        entry.add(lane);
      }
      (lane.enabled() ? enabledTags : disabledTags).add(lane.tag());
    }
    disabledTags.removeAll(enabledTags);
    this.entryLanes = entry.toArray(new Lane[0]);
    this.switchedOffTags = Set.copyOf(disabledTags);
    this.randomBucket = randomBucket;
  }

  /** A random bucket per call, from the calling thread's generator. */
  static IntSupplier threadLocalRandomBuckets() {
    return () -> ThreadLocalRandom.current().nextInt(Lane.BUCKETS);
  }

  public List<Lane> lanes() {
    return lanes;
  }

  /** Each lane in one line ({@link Lane#describe}), in document order. */
  public List<String> describeLanes() {
    List<String> out = new ArrayList<>(lanes.size());
    for (Lane lane : lanes) {
      out.add(lane.describe());
    }
    return List.copyOf(out);
  }

  /** Whether any enabled lane can tag a request at the entry. */
  public boolean hasEntryRules() {
    return entryLanes.length > 0;
  }

  /**
   * The tag an untagged request gets at the entry: that of the first enabled lane whose conditions
   * it matches and whose share (if any) its bucket falls in; null when no lane takes it.
   */
  @SuppressWarnings("unchecked")
  public <R> String entryTag(R request, RequestReader<R> reader) {
    RequestReader<Object> anyReader = (RequestReader<Object>) reader;
    int drawn = -1;
    for (Lane lane : entryLanes) {
      if (!lane.matchesConditions(request, anyReader)) {
        continue;
      }
      if (!lane.hasShare()) {
        return lane.tag();
      }
      int bucket = lane.stickyBucket(request, anyReader);
      if (bucket < 0) {
        if (drawn < 0) {
          drawn = randomBucket.getAsInt();
        }
        bucket = drawn;
      }
      if (lane.inSlice(bucket)) {
        return lane.tag();
      }
    }
    return null;
  }

  /**
   * Whether a request carrying {@code tag} is routed as an untagged one: its lanes are all
   * disabled, which is how a lane is switched off without untagging the requests in flight.
   */
  public boolean routesAsBase(String tag) {
    return !switchedOffTags.isEmpty() && switchedOffTags.contains(tag);
  }

  @Override
  public String toString() {
    return lanes.toString();
  }
}
