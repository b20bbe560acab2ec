package io.sluice.server.naming;

/**
 * The registry's counts, as Nacos's naming metrics report them.
 *
 * @param services listed services
 * @param instances instances of every kind
 * @param subscribers subscriptions
 * @param persistentInstances persistent instances
 * @param heartbeatingClients HTTP clients that keep instances alive with heartbeats
 */
public record NamingStats(
    int services,
    int instances,
    int subscribers,
    int persistentInstances,
    int heartbeatingClients) {}
