package io.sluice.server.replication;

import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The directory of {@link SnapshotFile}s, inside the Ratis group's state-machine directory, named
 * {@code snapshot-<term>-<index>.bin}. Ratis asks it for the latest snapshot (to open the log and
 * to send followers), and to delete old ones after each new snapshot.
 *
 * <p>Concurrency: {@link #latest} is written on the apply thread (new snapshot) or during
 * initialisation, read by any Ratis thread.
 */
final class SnapshotDirectory implements StateMachineStorage {
  private static final Logger log = LoggerFactory.getLogger(SnapshotDirectory.class);
  private static final Pattern SNAPSHOT_NAME = Pattern.compile("snapshot-(\\d+)-(\\d+)\\.bin");

  private volatile Path directory;
  private volatile Snapshot latest;

  /** A snapshot file on disk and the log position it holds. */
  record Snapshot(Path file, SnapshotFile.Position position) implements SnapshotInfo {
    @Override
    public TermIndex getTermIndex() {
      return TermIndex.valueOf(position.term(), position.index());
    }

    @Override
    public List<FileInfo> getFiles() {
      // No MD5: integrity is the file's own CRC32C, checked by the receiver before loading.
      return List.of(new FileInfo(file, null));
    }
  }

  @Override
  public void init(RaftStorage storage) throws IOException {
    Path dir = storage.getStorageDir().getStateMachineDir().toPath();
    Files.createDirectories(dir);
    this.directory = dir;
    deleteLeftoverTempFiles();
  }

  Path directory() {
    return directory;
  }

  Path pathFor(SnapshotFile.Position position) {
    return directory.resolve("snapshot-" + position.term() + "-" + position.index() + ".bin");
  }

  /** Snapshot files by name, newest (highest index) first; not yet verified. */
  List<Snapshot> listNewestFirst() throws IOException {
    List<Snapshot> found = new ArrayList<>();
    if (directory == null || !Files.isDirectory(directory)) {
      return found;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "snapshot-*.bin")) {
      for (Path file : files) {
        Matcher name = SNAPSHOT_NAME.matcher(file.getFileName().toString());
        if (name.matches()) {
          found.add(
              new Snapshot(
                  file,
                  new SnapshotFile.Position(
                      Long.parseLong(name.group(1)), Long.parseLong(name.group(2)))));
        }
      }
    }
    found.sort(
        Comparator.comparingLong((Snapshot s) -> s.position().index())
            .thenComparingLong(s -> s.position().term())
            .reversed());
    return found;
  }

  void setLatest(Snapshot snapshot) {
    this.latest = snapshot;
  }

  /**
   * Moves a damaged snapshot aside as {@code <name>.corrupt}, kept for inspection, so the next
   * start does not try it again.
   */
  void setAside(Path file) {
    try {
      Path aside = file.resolveSibling(file.getFileName() + ".corrupt");
      Files.move(file, aside, StandardCopyOption.REPLACE_EXISTING);
      log.error("moved damaged snapshot aside to {}", aside);
    } catch (IOException e) {
      log.error("could not move damaged snapshot {} aside", file, e);
    }
  }

  @Override
  public SnapshotInfo getLatestSnapshot() {
    return latest;
  }

  @Override
  public void format() {
    // Nothing to prepare: the directory is created by init.
  }

  @Override
  public void cleanupOldSnapshots(SnapshotRetentionPolicy policy) throws IOException {
    int keep = policy.getNumSnapshotsRetained();
    if (keep <= 0) {
      return;
    }
    List<Snapshot> snapshots = listNewestFirst();
    Snapshot current = latest;
    for (int i = keep; i < snapshots.size(); i++) {
      Path file = snapshots.get(i).file();
      if (current != null && file.equals(current.file())) {
        continue; // never delete what the log was opened against
      }
      Files.deleteIfExists(file);
      log.debug("deleted old snapshot {}", file);
    }
  }

  @Override
  public File getSnapshotDir() {
    return directory.toFile();
  }

  private void deleteLeftoverTempFiles() throws IOException {
    // A crash during a snapshot leaves its temp file; the rename never happened, so it is garbage.
    // One a writer still holds is not: an engine being replaced in-process may still be writing.
    try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "snapshot-*.tmp")) {
      for (Path file : files) {
        if (SnapshotFile.isTemporary(file) && SnapshotFile.deleteIfAbandoned(file)) {
          log.info("deleted unfinished snapshot {}", file);
        }
      }
    }
  }
}
