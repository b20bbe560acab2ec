package io.sluice.server.config;

/**
 * What a config search looks for, as Nacos's console and Open API search: by namespace, then data
 * id and group matched exactly, or with {@code *} wildcards when {@code blur}, optionally by app
 * name and config tags (any of them). Blank strings match everything.
 */
public record ConfigCriteria(
    boolean blur,
    String namespace,
    String dataId,
    String group,
    String appName,
    String configTags) {}
