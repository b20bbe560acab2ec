package io.sluice.server.config;

/**
 * One publish or delete, as kept in history.
 *
 * @param opType {@code I} (first publish), {@code U} (update) or {@code D} (delete), as Nacos
 *     reports them
 * @param publishType {@code formal}, {@code beta} or {@code tag}
 * @param content the content published, or the content deleted
 * @param createdMillis when the config was first published
 * @param modifiedMillis when this operation happened
 */
public record ConfigHistoryEntry(
    long id,
    ConfigKey key,
    char opType,
    String publishType,
    String tag,
    String content,
    String md5,
    String type,
    String appName,
    String srcUser,
    String srcIp,
    String encryptedDataKey,
    long createdMillis,
    long modifiedMillis) {}
