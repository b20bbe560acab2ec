package io.sluice.flow;

import java.util.List;

/**
 * A snapshot of one resource's statistics, taken without stopping the callers that write them. The
 * windows are the most recent complete ones: a sub-window ends on a 100 ms boundary of the
 * registry's clock, and the second is the last ten of them, so it too ends on a 100 ms boundary.
 *
 * @param resource the resource name
 * @param concurrency calls admitted and not yet released
 * @param lastSecond the last complete second
 * @param subWindows its ten 100 ms sub-windows, oldest first
 * @param lastMinute the last complete minute (60 one-second windows; latency percentiles over the
 *     last six complete 10 s periods)
 * @param total everything since the resource first recorded statistics
 */
public record ResourceStatistics(
    String resource,
    long concurrency,
    WindowStatistics lastSecond,
    List<WindowStatistics> subWindows,
    WindowStatistics lastMinute,
    WindowStatistics total) {}
