package io.sluice.server.traffic.http;

import io.sluice.server.protocol.http.FormValue;
import io.sluice.server.traffic.TrafficReportBuffer;
import io.sluice.server.traffic.TrafficStore;

/**
 * Takes an agent's report from the request's bytes into the store: the form field's value is
 * unescaped where it lies in the body, read as UTF-8 JSON into a {@link TrafficReportBuffer} kept
 * per thread, and stored only once all of it was read. No {@code String} of the report, no object
 * per row: a steady report costs its body's bytes and a few small objects.
 *
 * <p>Invariant: a report that is not what agents send is refused whole (an {@link
 * io.sluice.server.protocol.http.HttpApiException} 400 naming the field) and changes nothing.
 *
 * <p>Concurrency: any thread; each uses its own buffer (a few KiB kept between reports; what a
 * large report grew is let go of when it is stored).
 */
public final class TrafficIngest {
  private final TrafficStore store;
  private final TrafficReportCodec codec = new TrafficReportCodec();
  private final ThreadLocal<TrafficReportBuffer> buffers =
      ThreadLocal.withInitial(TrafficReportBuffer::new);

  public TrafficIngest(TrafficStore store) {
    this.store = store;
  }

  /** Reads and stores the report in {@code report} (its bytes are rewritten as it is decoded). */
  public void accept(FormValue report) {
    report.unescape();
    TrafficReportBuffer buffer = buffers.get();
    try {
      codec.read(report.bytes(), report.from(), report.to(), buffer);
      store.accept(buffer);
    } finally {
      buffer.reset();
    }
  }
}
