package io.sluice.agent.governance;

import io.sluice.agent.bootstrap.SluiceContext;
import java.util.Map;

/**
 * The governance context a Dubbo provider's call arrives with, read from its attachments as Dubbo
 * decoded them: the caller's application from {@code x-sluice-origin} (every governed consumer
 * sends it), else Sentinel's Dubbo adapter's {@code dubboApplication}, else Dubbo's own {@code
 * remote.application}; the lane from {@code x-sluice-lane}, MSE's {@code x-mse-tag} or {@code
 * baggage}, as on HTTP. Only string values count, as {@code Invocation.getAttachment} reads them.
 *
 * <p>The advice hands over the invocation's own map ({@code getObjectAttachments()}: one lock of
 * the invocation instead of one per key), which only this thread touches while the call is
 * dispatched to the service; it is only read. An attachment is read only when the ones before it in
 * precedence leave it a say: a caller that names itself in {@code x-sluice-origin} costs no lookup
 * of the other two names, so a governed caller's call costs four lookups (origin and the three lane
 * forms).
 *
 * <p>The common call, a named caller with its lane (if any) as {@code x-sluice-lane} alone (as
 * every governed consumer sends it: the edge writes {@code base} on untagged requests), gets one of
 * the contexts {@link SluiceContext#inbound} shares per caller and lane. Instead of asking that for
 * it (a map by origin, then the origin context's map by lane), the context is found in a small memo
 * indexed by the two values' hashes and checked by their contents. Invariants: a memo slot holds
 * null or a context {@code inbound} returned for a named caller with neither {@code x-mse-tag} nor
 * {@code baggage} (origin, lane, no other form, no entrance: immutable); it answers a call only
 * when its origin and lane equal the call's as {@code inbound} would read them (the lane trimmed,
 * blank as none), so it returns what {@code inbound} returns for those values (the same shared
 * object, or an equal one where {@code inbound} stops sharing past its caps). The memo has {@link
 * #SLOTS} slots and never grows.
 *
 * <p>Concurrency: memo slots are written racily with plain stores; a context's fields are final, so
 * a reader that sees a context sees it whole. A lost write is a later miss. Nothing is allocated
 * unless the call carries a lane in a form other than {@code x-sluice-lane} alone (or past {@code
 * inbound}'s caps).
 */
final class DubboAttachments {
  /** Sentinel's Dubbo adapter's attachment for the calling application. */
  static final String SENTINEL_APPLICATION = "dubboApplication";

  /** Dubbo's own attachment for the calling application. */
  static final String DUBBO_APPLICATION = "remote.application";

  static final int SLOTS = 64;

  private final SluiceContext[] contexts = new SluiceContext[SLOTS];

  SluiceContext contextOf(Map<String, Object> attachments) {
    if (attachments == null || attachments.isEmpty()) {
      return null;
    }
    // SluiceContext.originOf's precedence, then Dubbo's own name, each read only if still needed.
    String origin = string(attachments, SluiceContext.Headers.ORIGIN);
    if (isBlank(origin)) {
      String sentinel = string(attachments, SENTINEL_APPLICATION);
      origin = isBlank(sentinel) ? string(attachments, DUBBO_APPLICATION) : sentinel;
    }
    String lane = string(attachments, SluiceContext.Headers.LANE);
    String mseTag = string(attachments, SluiceContext.Headers.MSE_LANE);
    String baggage = string(attachments, SluiceContext.Headers.BAGGAGE);
    if (mseTag != null || baggage != null || isBlank(origin)) {
      return SluiceContext.inbound(origin, lane, mseTag, baggage);
    }
    String wanted = isBlank(lane) ? null : lane.trim();
    int slot = (31 * origin.hashCode() + (wanted == null ? 0 : wanted.hashCode())) & (SLOTS - 1);
    SluiceContext known = contexts[slot];
    if (known != null
        && origin.equals(known.origin())
        && (wanted == null ? known.lane() == null : wanted.equals(known.lane()))) {
      return known;
    }
    SluiceContext context = SluiceContext.inbound(origin, lane, null, null);
    if (context != null) {
      contexts[slot] = context;
    }
    return context;
  }

  private static String string(Map<String, Object> attachments, String key) {
    Object value = attachments.get(key);
    return value instanceof String ? (String) value : null;
  }

  private static boolean isBlank(String s) {
    return s == null || s.isEmpty();
  }
}
