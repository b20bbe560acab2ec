package io.sluice.server.auth;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.feature.ReplicatedWrites;
import io.sluice.server.replication.ReplicatedState;
import java.security.SecureRandom;
import java.util.concurrent.Executor;

/**
 * Auth, put together: the store (a replicated state) and the one door to it, {@link #service()}.
 */
public final class AuthFeature {
  private final AuthStore store = new AuthStore();
  private final AuthService service;

  /**
   * @param enabled whether requests are checked
   * @param hashing where passwords are hashed and checked (slow on purpose: not an event loop)
   */
  public AuthFeature(
      ReplicatedWrites writes,
      ServerClock clock,
      Executor hashing,
      boolean enabled,
      long tokenTtlSeconds) {
    SecureRandom random = new SecureRandom();
    this.service =
        new AuthService(
            store,
            writes,
            clock,
            hashing,
            random,
            new PasswordHasher(random),
            enabled,
            tokenTtlSeconds);
  }

  public AuthService service() {
    return service;
  }

  public ReplicatedState state() {
    return store;
  }
}
