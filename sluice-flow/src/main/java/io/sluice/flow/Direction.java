package io.sluice.flow;

/** Which way a resource's traffic flows; system rules protect only {@link #INBOUND} resources. */
public enum Direction {
  /** Calls into this application (Sentinel's {@code EntryType.IN}): servlet routes, providers. */
  INBOUND,
  /** Calls this application makes: HTTP clients, consumers, internal resources. */
  OUTBOUND
}
