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
 * dispatched to the service; it is only read. Nothing is allocated unless the call carries a lane.
 */
final class DubboAttachments {
  /** Sentinel's Dubbo adapter's attachment for the calling application. */
  static final String SENTINEL_APPLICATION = "dubboApplication";

  /** Dubbo's own attachment for the calling application. */
  static final String DUBBO_APPLICATION = "remote.application";

  private DubboAttachments() {}

  static SluiceContext contextOf(Map<String, Object> attachments) {
    if (attachments == null || attachments.isEmpty()) {
      return null;
    }
    String origin =
        SluiceContext.originOf(
            string(attachments, SluiceContext.Headers.ORIGIN),
            string(attachments, SENTINEL_APPLICATION));
    if (origin == null) {
      origin = string(attachments, DUBBO_APPLICATION);
    }
    return SluiceContext.inbound(
        origin,
        string(attachments, SluiceContext.Headers.LANE),
        string(attachments, SluiceContext.Headers.MSE_LANE),
        string(attachments, SluiceContext.Headers.BAGGAGE));
  }

  private static String string(Map<String, Object> attachments, String key) {
    Object value = attachments.get(key);
    return value instanceof String ? (String) value : null;
  }
}
