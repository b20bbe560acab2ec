package io.sluice.bench.load;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The config operations the scenarios drive, in one client mode (the lean driver or the official
 * nacos-client). Futures complete exceptionally when the server answered with an error or a query
 * found nothing.
 */
interface ConfigClient extends AutoCloseable {
  CompletableFuture<?> query(String dataId, String group);

  CompletableFuture<?> publish(String dataId, String group, String content);

  /**
   * Opens one listening client per element of {@code dataIdsPerClient}, each on its own connection,
   * listening to those configs. Returns once every client listens; closing the result disconnects
   * them.
   *
   * @param currentMd5 the md5 the listeners should claim to hold for a dataId, so that the server
   *     reports nothing as changed at the start
   */
  AutoCloseable listen(
      List<List<String>> dataIdsPerClient,
      String group,
      java.util.function.Function<String, String> currentMd5,
      ListenEvents events)
      throws Exception;

  /** What listening clients see. Called from client threads; must be quick. */
  interface ListenEvents {
    /** The server told a listener that {@code dataId} changed (lean driver only). */
    void notified(String dataId, long nanos);

    /** A listener holds {@code content} of {@code dataId} after a change. */
    void received(String dataId, String content, long nanos);
  }

  @Override
  void close();
}
