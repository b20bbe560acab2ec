package io.sluice.e2e.chain;

import java.util.Map;

/** One instance of a service as the registry lists it. */
public record RegisteredInstance(
    String ip, int port, boolean healthy, Map<String, String> metadata) {}
