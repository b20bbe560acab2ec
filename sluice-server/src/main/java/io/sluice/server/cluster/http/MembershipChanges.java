package io.sluice.server.cluster.http;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Changes the cluster's membership at runtime (a Raft configuration change); the server implements
 * it over its store. Futures fail with {@link IllegalArgumentException} for a request that can
 * never succeed (a malformed address, adding a member twice), with anything else when the cluster
 * could not make the change now.
 */
public interface MembershipChanges {
  /**
   * Adds the node at {@code address} ({@code host:port}, its HTTP address) to the cluster; it must
   * already run, started with a cluster list that includes itself. Completes with every member's
   * address once the change is committed.
   */
  CompletableFuture<List<String>> add(String address);

  /** Removes the node at {@code address}; completes with the remaining members' addresses. */
  CompletableFuture<List<String>> remove(String address);

  /** For a standalone server: every change fails, saying why. */
  MembershipChanges NONE =
      new MembershipChanges() {
        @Override
        public CompletableFuture<List<String>> add(String address) {
          return refused();
        }

        @Override
        public CompletableFuture<List<String>> remove(String address) {
          return refused();
        }

        private CompletableFuture<List<String>> refused() {
          return CompletableFuture.failedFuture(
              new IllegalArgumentException(
                  "this server runs standalone; start it with --cluster-conf or --peers to form a"
                      + " cluster"));
        }
      };
}
