package io.sluice.server.protocol.grpc;

/**
 * Any client message on the bidirectional stream after setup. They are all answers to our pushes
 * ({@code ConfigChangeNotifyResponse}, {@code NotifySubscriberResponse}, ...), and all that matters
 * is which push they answer and whether it succeeded, so one shape reads them all.
 */
final class StreamResponse extends NacosResponse {}
