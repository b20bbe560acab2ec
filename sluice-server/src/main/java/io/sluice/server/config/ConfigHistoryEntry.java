package io.sluice.server.config;

/**
 * One publish or delete, as kept in history.
 *
 * @param opType {@code I} (first publish), {@code U} (update) or {@code D} (delete), as Nacos
 *     reports them
 * @param target which version it changed ({@link ConfigTarget#publishType()} is Nacos's {@code
 *     publishType})
 * @param content the content published, or the content deleted
 * @param meta the metadata published (or of the version deleted), with who did it
 * @param createdMillis when the config was first published
 * @param modifiedMillis when this operation happened
 */
public record ConfigHistoryEntry(
    long id,
    ConfigKey key,
    char opType,
    ConfigTarget target,
    String tag,
    String content,
    String md5,
    ConfigMeta meta,
    long createdMillis,
    long modifiedMillis) {}
