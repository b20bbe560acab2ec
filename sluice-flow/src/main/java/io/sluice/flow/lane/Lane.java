package io.sluice.flow.lane;

import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;

/**
 * One lane of a lane document: its name, the tag its instances and its requests carry, whether it
 * is enabled, and what it takes at the entry: requests matching its conditions (all of them or any
 * one), and/or a share of the traffic. A share is a slice of the bucket space [0, 10,000) laid out
 * after the slices of the lanes before it, so lanes with shares never overlap; the bucket comes
 * from the sticky key's value when the lane names one and the request carries it, else from one
 * random draw per request. Immutable.
 */
public final class Lane {
  /** The bucket space a share is a slice of: one bucket is 0.01 % of the traffic. */
  public static final int BUCKETS = 10_000;

  private final String name;
  private final String tag;
  private final boolean enabled;
  private final List<Condition> conditions;
  private final boolean anyOf;
  private final int shareBuckets; // -1: no share
  private final int sliceStart;
  private final RequestReader.Source stickySource;
  private final String stickyName;

  Lane(
      String name,
      String tag,
      boolean enabled,
      List<Condition> conditions,
      boolean anyOf,
      int shareBuckets,
      int sliceStart,
      RequestReader.Source stickySource,
      String stickyName) {
    this.name = name;
    this.tag = tag;
    this.enabled = enabled;
    this.conditions = List.copyOf(conditions);
    this.anyOf = anyOf;
    this.shareBuckets = shareBuckets;
    this.sliceStart = sliceStart;
    this.stickySource = stickySource;
    this.stickyName = stickyName;
  }

  public String name() {
    return name;
  }

  public String tag() {
    return tag;
  }

  public boolean enabled() {
    return enabled;
  }

  public List<Condition> conditions() {
    return conditions;
  }

  /** The share of traffic in buckets of 0.01 %, or -1 when the lane takes no share. */
  public int shareBuckets() {
    return shareBuckets;
  }

  /** Whether the lane can tag anything at the entry. */
  boolean takesEntryTraffic() {
    return enabled && (!conditions.isEmpty() || shareBuckets > 0);
  }

  boolean matchesConditions(Object request, RequestReader<Object> reader) {
    if (conditions.isEmpty()) {
      return true;
    }
    for (int i = 0; i < conditions.size(); i++) {
      boolean matched = conditions.get(i).matches(request, reader);
      if (matched && anyOf) {
        return true;
      }
      if (!matched && !anyOf) {
        return false;
      }
    }
    return !anyOf;
  }

  boolean hasShare() {
    return shareBuckets >= 0;
  }

  /** The bucket of the sticky key's value, or -1 when there is no sticky key or no value. */
  int stickyBucket(Object request, RequestReader<Object> reader) {
    if (stickySource == null) {
      return -1;
    }
    String value = reader.read(request, stickySource, stickyName);
    return value == null ? -1 : bucketOf(value);
  }

  boolean inSlice(int bucket) {
    return bucket >= sliceStart && bucket < sliceStart + shareBuckets;
  }

  /**
   * A stable bucket for a sticky value: the same on every instance and JVM (String's hash is
   * specified), spread by a murmur3 finaliser so that similar ids do not fall in runs.
   */
  static int bucketOf(String value) {
    int h = value.hashCode();
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return Integer.remainderUnsigned(h, BUCKETS);
  }

  /**
   * The lane in one line, for people (the console lists a saved document's lanes this way): {@code
   * gray-half -> gray: 50 % of requests, sticky on header x-user-id}.
   */
  public String describe() {
    StringBuilder out = new StringBuilder();
    out.append(name).append(" -> ").append(tag).append(": ");
    if (!enabled) {
      out.append("disabled (requests still carrying its tag are routed as base)");
      return out.toString();
    }
    if (!takesEntryTraffic()) {
      out.append("takes nothing at the entry, routes requests that carry its tag");
      return out.toString();
    }
    if (shareBuckets >= 0) {
      out.append(new BigDecimal(shareBuckets).movePointLeft(2).stripTrailingZeros().toPlainString())
          .append(" % of requests");
      if (!conditions.isEmpty()) {
        out.append(" that match ");
      }
    } else {
      out.append("requests that match ");
    }
    if (!conditions.isEmpty()) {
      if (conditions.size() > 1) {
        out.append(anyOf ? "any of " : "all of ");
      }
      out.append(conditions);
    }
    if (stickySource != null) {
      out.append(", sticky on ")
          .append(stickySource.name().toLowerCase(Locale.ROOT))
          .append(' ')
          .append(stickyName);
    }
    return out.toString();
  }

  @Override
  public String toString() {
    return name + "->" + tag + (enabled ? "" : " (disabled)");
  }
}
