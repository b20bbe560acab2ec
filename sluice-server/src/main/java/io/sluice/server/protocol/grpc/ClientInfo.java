package io.sluice.server.protocol.grpc;

import java.util.Map;

/**
 * What a client said about itself in its {@code ConnectionSetupRequest}. Informational: used for
 * beta-IP matching, listings and logs, never for identity.
 *
 * @param clientIp the IP the client reports (its own local address); may differ from the
 *     transport's remote address behind NAT
 */
public record ClientInfo(
    String clientIp,
    String clientVersion,
    String module,
    String appName,
    String namespace,
    Map<String, String> labels) {}
