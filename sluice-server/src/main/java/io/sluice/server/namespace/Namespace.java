package io.sluice.server.namespace;

/**
 * A namespace an operator created: configs and services are kept apart by it. The public namespace
 * ({@code ""}, also spelled {@code "public"}) always exists and is not stored.
 *
 * @param id what clients pass as {@code tenant} or {@code namespaceId}
 * @param name the name shown to people ({@code namespaceShowName} in Nacos's API)
 * @param description may be null
 * @param createdMillis when it was created, decided by the node that accepted the request
 */
public record Namespace(String id, String name, String description, long createdMillis) {}
