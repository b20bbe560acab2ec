package io.sluice.server.naming;

/**
 * The answer to a heartbeat of an instance registered over HTTP.
 *
 * @param found whether the instance is (now) registered; when not, the client registers again
 * @param intervalMillis how often the client should beat
 */
public record Beat(boolean found, long intervalMillis) {}
