package io.sluice.flow;

/**
 * One resource's last complete second and its calls in flight: the part of {@link
 * ResourceStatistics} a once-a-second reader needs, taken by {@link FlowRegistry#lastSeconds()}
 * without computing the minute and the totals.
 *
 * @param resource the resource name
 * @param concurrency calls admitted and not yet released
 * @param lastSecond the last complete second: its ten most recent complete 100 ms sub-windows
 */
public record ResourceSecond(String resource, long concurrency, WindowStatistics lastSecond) {}
