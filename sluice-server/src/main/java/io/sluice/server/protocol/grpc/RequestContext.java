package io.sluice.server.protocol.grpc;

/**
 * Who sent a request.
 *
 * @param connection the registered connection the request arrived on (its transport)
 * @param clientIp the IP the client reports in the payload metadata, else the transport's
 */
public record RequestContext(Connection connection, String clientIp) {}
