package io.sluice.server.traffic;

/**
 * One resource's traffic in one second, as an agent reports it (sluice-flow's last complete
 * second). Response times are in microseconds, -1 when nothing was timed.
 *
 * @param name the resource ({@code GET /orders/{id}}, a client call, a Dubbo method)
 * @param pass calls admitted
 * @param block calls refused by a rule
 * @param failed admitted calls that failed
 * @param avgRtMicros mean response time of the timed calls
 * @param p50RtMicros median response time
 * @param p99RtMicros 99th percentile response time
 * @param concurrency calls in flight at the end of the second
 */
public record ResourceSecond(
    String name,
    int pass,
    int block,
    int failed,
    int avgRtMicros,
    int p50RtMicros,
    int p99RtMicros,
    int concurrency) {}
