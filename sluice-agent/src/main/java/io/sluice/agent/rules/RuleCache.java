package io.sluice.agent.rules;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The last rules the config center delivered, one file per document, so the next start applies them
 * before the server answers (or when it never does). Files are replaced by atomic rename: a crash
 * leaves the old or the new document, never half of one.
 */
final class RuleCache {
  private final Path directory;

  RuleCache(Path directory) {
    this.directory = directory;
  }

  /** The cached content, or null when nothing is cached (or the cache cannot be read). */
  String read(ConfigKey key) {
    Path file = fileOf(key);
    try {
      return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : null;
    } catch (IOException e) {
      return null;
    }
  }

  /** Stores the content; null removes the entry (the document no longer exists). */
  void write(ConfigKey key, String content) throws IOException {
    Path file = fileOf(key);
    if (content == null) {
      Files.deleteIfExists(file);
      return;
    }
    Files.createDirectories(file.getParent());
    Path temp = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
    try {
      Files.writeString(temp, content, StandardCharsets.UTF_8);
      try {
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  Path fileOf(ConfigKey key) {
    String tenant = key.tenant().isEmpty() ? "public" : key.tenant();
    return directory
        .resolve(safe(tenant))
        .resolve(safe(key.group()))
        .resolve(safe(key.dataId()) + ".json");
  }

  // Names come from configuration; keep them to one path segment of harmless characters.
  private static String safe(String name) {
    String cleaned = name.replaceAll("[^A-Za-z0-9._-]", "_");
    return cleaned.startsWith(".") ? "_" + cleaned : cleaned;
  }
}
