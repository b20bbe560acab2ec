package io.sluice.server;

import io.sluice.server.feature.WriteGate;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses writes while the data directory's disk has less than a floor of free space, so that the
 * store's log never meets a full disk mid-write (Ratis closes its log for good on ENOSPC); writes
 * resume by themselves once space returns. The free space is sampled every {@value #SAMPLE_MILLIS}
 * ms on the scheduler, so a write only reads a volatile field.
 *
 * <p>A limit: space taken by another process between two samples can still fill the disk under a
 * write; the floor (default 64 MiB, far above one command) is the margin for that.
 */
final class DiskSpaceGuard implements WriteGate, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DiskSpaceGuard.class);
  static final long SAMPLE_MILLIS = 1_000;

  private final Path dataDir;
  private final long minFreeBytes;
  private final ScheduledFuture<?> sampling;
  private volatile String refusal;

  DiskSpaceGuard(Path dataDir, long minFreeBytes, ScheduledExecutorService scheduler) {
    this.dataDir = dataDir;
    this.minFreeBytes = minFreeBytes;
    sample();
    this.sampling =
        scheduler.scheduleWithFixedDelay(
            this::sample, SAMPLE_MILLIS, SAMPLE_MILLIS, TimeUnit.MILLISECONDS);
  }

  @Override
  public String refusal() {
    return refusal;
  }

  void sample() {
    String now;
    try {
      FileStore store = Files.getFileStore(dataDir);
      long free = store.getUsableSpace();
      now =
          free >= minFreeBytes
              ? null
              : "the data directory's disk is nearly full: "
                  + free / (1024 * 1024)
                  + " MiB free in "
                  + dataDir.toAbsolutePath()
                  + ", writes need "
                  + minFreeBytes / (1024 * 1024)
                  + " MiB (min-free-disk-bytes); free some space and writes resume by themselves";
    } catch (IOException | RuntimeException e) {
      now = "cannot tell the free space of " + dataDir + ": " + e.getMessage();
    }
    String before = refusal;
    refusal = now;
    if (now != null && before == null) {
      log.error("refusing writes: {}", now);
    } else if (now == null && before != null) {
      log.info("disk space is back: writes resume");
    }
  }

  @Override
  public void close() {
    sampling.cancel(false);
  }
}
