package io.sluice.server.protocol.grpc;

/**
 * What a request reads or writes, for an access check: a config or service in a namespace and
 * group.
 *
 * @param type {@code config} or {@code naming}, as Nacos's resources say
 */
public record RequestResource(
    String namespace, String group, String type, String name, boolean write) {}
