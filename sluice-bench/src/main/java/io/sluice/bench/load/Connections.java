package io.sluice.bench.load;

import io.sluice.bench.load.lean.LeanConnection;
import io.sluice.bench.load.lean.LeanTransport;
import io.sluice.bench.load.lean.PushHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** Opens many lean connections, a bounded number of handshakes at a time. */
final class Connections {
  private static final int HANDSHAKES_AT_ONCE = 64;

  private Connections() {}

  static List<LeanConnection> open(LeanTransport transport, Map<String, String> labels, int count) {
    return open(transport, labels, count, PushHandler.IGNORE);
  }

  static List<LeanConnection> open(
      LeanTransport transport, Map<String, String> labels, int count, PushHandler pushes) {
    List<LeanConnection> opened = new ArrayList<>(count);
    try {
      for (int from = 0; from < count; from += HANDSHAKES_AT_ONCE) {
        List<CompletableFuture<LeanConnection>> batch = new ArrayList<>();
        for (int i = from; i < Math.min(count, from + HANDSHAKES_AT_ONCE); i++) {
          batch.add(transport.connect(labels, pushes));
        }
        for (CompletableFuture<LeanConnection> c : batch) {
          opened.add(c.join());
        }
      }
      return opened;
    } catch (RuntimeException e) {
      opened.forEach(LeanConnection::close);
      throw e;
    }
  }
}
