package io.sluice.server.config;

import io.sluice.server.feature.Fault;
import io.sluice.server.feature.Refusal;

/** What applying a {@link ConfigCommand} did; handed back to whoever submitted it. */
public sealed interface ConfigOutcome {
  record Published(ConfigVersion version) implements ConfigOutcome {}

  /** A compare-and-set publish found another md5 than it expected; nothing changed. */
  record CasConflict(String currentMd5) implements ConfigOutcome {}

  /**
   * @param existed false when there was nothing to remove (still a success, as in Nacos)
   */
  record Removed(boolean existed) implements ConfigOutcome {}

  /**
   * The command could not be read; nothing changed. The door's caller never sees it: the write
   * fails with a {@link ConfigException} of this fault.
   */
  record Rejected(Fault fault, String reason) implements ConfigOutcome, Refusal {}
}
