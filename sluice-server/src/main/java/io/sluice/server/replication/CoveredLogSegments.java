package io.sluice.server.replication;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.raftlog.segmented.LogSegment;
import org.apache.ratis.server.raftlog.segmented.LogSegmentPath;
import org.apache.ratis.util.SizeInBytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a damaged closed log segment that the loaded snapshot makes redundant from stopping the
 * start. Ratis refuses to open a log with a closed segment holding fewer entries than its name says
 * (a file cut by a disk fault or a careless copy), even when every entry in it is already inside
 * the snapshot the states were loaded from and will never be replayed.
 *
 * <p>So when a start fails, each closed segment ending at or below the loaded snapshot's index is
 * read through; if one is damaged, it and every closed segment before it (Ratis needs the segments
 * it opens to be contiguous) are renamed {@code <name>.set-aside}, kept for inspection, and the
 * start is tried once more, the log now starting after them and still reaching back to the
 * snapshot. A damaged segment the snapshot does not wholly cover holds writes that exist nowhere
 * else: it is left alone, and the start fails as before. A start that works reads nothing more.
 */
final class CoveredLogSegments {
  private static final Logger log = LoggerFactory.getLogger(CoveredLogSegments.class);
  private static final Pattern CLOSED_SEGMENT = Pattern.compile("log_(\\d+)-(\\d+)");
  private static final Pattern SEGMENT_START = Pattern.compile("_(\\d+)");
  static final String SET_ASIDE_SUFFIX = ".set-aside";

  private CoveredLogSegments() {}

  /**
   * Sets aside the damaged closed segments in {@code logDirectory} wholly covered by the snapshot
   * at {@code snapshotIndex} (and the segments before them); returns whether it set any aside.
   */
  static boolean setAsideDamaged(Path logDirectory, long snapshotIndex, ReplicationOptions options)
      throws IOException {
    if (snapshotIndex < 0 || !Files.isDirectory(logDirectory)) {
      return false;
    }
    SizeInBytes maxEntryBytes =
        RaftServerConfigKeys.Log.Appender.bufferByteLimit(RatisProperties.from(options));
    List<LogSegmentPath> segments = new ArrayList<>();
    try (Stream<Path> files = Files.list(logDirectory)) {
      files.map(LogSegmentPath::matchLogSegment).filter(Objects::nonNull).forEach(segments::add);
    }
    segments.sort(Comparator.comparingLong(CoveredLogSegments::startOf));
    long damagedEnd = -1;
    for (LogSegmentPath segment : segments) {
      Matcher name = CLOSED_SEGMENT.matcher(segment.getPath().getFileName().toString());
      if (!name.matches()) {
        continue; // the open segment
      }
      long start = Long.parseLong(name.group(1));
      long end = Long.parseLong(name.group(2));
      if (end > snapshotIndex) {
        break;
      }
      String damage = damage(segment, end - start + 1, maxEntryBytes);
      if (damage != null) {
        log.error(
            "log segment {} is damaged ({}); every entry in it is inside snapshot {}, so it is set"
                + " aside and the log is opened without it",
            segment.getPath(),
            damage,
            snapshotIndex);
        damagedEnd = end;
      }
    }
    if (damagedEnd < 0) {
      return false;
    }
    for (LogSegmentPath segment : segments) {
      Matcher name = CLOSED_SEGMENT.matcher(segment.getPath().getFileName().toString());
      if (name.matches() && Long.parseLong(name.group(2)) <= damagedEnd) {
        Path file = segment.getPath();
        Path aside = file.resolveSibling(file.getFileName() + SET_ASIDE_SUFFIX);
        Files.move(file, aside);
        log.warn("set aside log segment {} (covered by snapshot {})", aside, snapshotIndex);
      }
    }
    return true;
  }

  private static long startOf(LogSegmentPath segment) {
    Matcher name = SEGMENT_START.matcher(segment.getPath().getFileName().toString());
    return name.find() ? Long.parseLong(name.group(1)) : Long.MAX_VALUE;
  }

  /** Why the segment cannot be read whole, or null when it holds all its entries. */
  private static String damage(LogSegmentPath segment, long expected, SizeInBytes maxEntryBytes) {
    try {
      int read =
          LogSegment.readSegmentFile(
              segment.getPath().toFile(),
              segment.getStartEnd(),
              maxEntryBytes,
              RaftServerConfigKeys.Log.CorruptionPolicy.EXCEPTION,
              null,
              null);
      return read == expected ? null : "holds " + read + " of its " + expected + " entries";
    } catch (IOException | RuntimeException e) {
      return e.getMessage();
    }
  }
}
