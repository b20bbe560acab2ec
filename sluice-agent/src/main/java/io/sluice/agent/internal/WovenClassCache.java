package io.sluice.agent.internal;

import io.sluice.agent.logging.AgentLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.CRC32C;

/**
 * Woven class files kept on disk between runs, so a start whose classes were all woven before loads
 * no Byte Buddy at all: Byte Buddy's thousand classes, loaded and run interpreted beside the
 * application's own start, were most of what the agent cost a start.
 *
 * <p>A woven class is a function of the original class file, the advice applied (named by the
 * instrumentations, whose code is the agent jar's) and nothing else, so an entry is keyed by the
 * agent jar (its path, size and modification time: a rebuilt jar gets a new directory, and the
 * others are deleted), the instrumentations that apply to the class in its loader, and a 128-bit
 * fingerprint of the original bytes (a new library or JDK version gets a new entry): two checksums,
 * CRC-32C and 64-bit FNV-1a, and the length. Not a cryptographic hash: entries are only ever
 * written by this agent, and loading the JDK's digest providers at every start would cost more than
 * the cache saves. Files are written whole by atomic rename, so a crash leaves an entry or none;
 * any failure to read or write only costs a weaving by Byte Buddy and is logged once.
 *
 * <p>Thread-safe: entries are separate files; concurrent writers of the same entry write the same
 * bytes.
 */
final class WovenClassCache {
  private final Path directory;
  private final AgentLog log;
  private final AtomicBoolean failureReported = new AtomicBoolean();

  private WovenClassCache(Path directory, AgentLog log) {
    this.directory = directory;
    this.log = log;
  }

  /**
   * The cache for this agent jar under {@code root}; the directories of other jars are deleted.
   *
   * @param agentKey identifies the agent jar and the instrumentations enabled
   */
  static WovenClassCache open(Path root, String agentKey, AgentLog log) {
    Path directory = root.resolve(agentKey);
    try (var others = Files.list(root)) {
      others.filter(p -> !p.equals(directory)).forEach(WovenClassCache::deleteQuietly);
    } catch (IOException | RuntimeException e) {
      // No root yet, or not readable: nothing to prune.
    }
    return new WovenClassCache(directory, log);
  }

  /** The key of an agent jar: path, size and modification time, and what is enabled. */
  static String agentKey(Path agentJar, String version, String enabledInstrumentations) {
    String identity;
    try {
      identity =
          agentJar.toAbsolutePath()
              + "|"
              + Files.size(agentJar)
              + "|"
              + Files.getLastModifiedTime(agentJar).toMillis();
    } catch (IOException e) {
      identity = agentJar.toAbsolutePath().toString();
    }
    return version
        + "-"
        + hash((identity + "|" + enabledInstrumentations).getBytes(StandardCharsets.UTF_8), null);
  }

  /** The woven form of {@code original} with {@code applied} instrumentations, or null. */
  byte[] get(String className, String applied, byte[] original) {
    Path file = fileOf(className, applied, original);
    try {
      return Files.exists(file) ? Files.readAllBytes(file) : null;
    } catch (IOException | RuntimeException e) {
      reportOnce("cannot read " + file + ": " + e);
      return null;
    }
  }

  void put(String className, String applied, byte[] original, byte[] woven) {
    Path file = fileOf(className, applied, original);
    try {
      Files.createDirectories(file.getParent());
      Path temp = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
      try {
        Files.write(temp, woven);
        try {
          Files.move(
              temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
          Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
        }
      } finally {
        Files.deleteIfExists(temp);
      }
    } catch (IOException | RuntimeException e) {
      reportOnce("cannot write " + file + " (woven classes are not cached): " + e);
    }
  }

  Path directory() {
    return directory;
  }

  private Path fileOf(String className, String applied, byte[] original) {
    return directory.resolve(className).resolve(hash(original, applied) + ".class");
  }

  /** The fingerprint of {@code bytes} (and {@code suffix}, if any) as 32 hex digits. */
  static String hash(byte[] bytes, String suffix) {
    byte[] tail = suffix == null ? new byte[0] : suffix.getBytes(StandardCharsets.UTF_8);
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    crc.update(0);
    crc.update(tail);
    long fnv = 0xcbf29ce484222325L;
    for (byte b : bytes) {
      fnv = (fnv ^ (b & 0xff)) * 0x100000001b3L;
    }
    fnv = (fnv ^ 0) * 0x100000001b3L;
    for (byte b : tail) {
      fnv = (fnv ^ (b & 0xff)) * 0x100000001b3L;
    }
    long lengthAndCrc = ((long) (bytes.length + tail.length) << 32) | crc.getValue();
    return hex16(lengthAndCrc) + hex16(fnv);
  }

  private static String hex16(long value) {
    String digits = Long.toHexString(value);
    return "0000000000000000".substring(digits.length()) + digits;
  }

  private void reportOnce(String message) {
    if (failureReported.compareAndSet(false, true)) {
      log.warn(message);
    }
  }

  private static void deleteQuietly(Path path) {
    try (var paths = Files.walk(path)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | RuntimeException e) {
      // Best effort: a stale directory only costs disk.
    }
  }
}
