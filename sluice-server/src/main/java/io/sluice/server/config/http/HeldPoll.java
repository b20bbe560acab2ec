package io.sluice.server.config.http;

import io.sluice.server.config.ConfigKey;
import io.sluice.server.config.ConfigWatcher;
import io.sluice.server.protocol.http.HttpResponses;
import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerResponse;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * One held HTTP long-poll: the response to answer, the configs it waits for and when it gives up.
 * Kept small on purpose (56 bytes, plus about 36 per listened config for its array slot and its
 * watch): ten thousand held polls must cost little more than their connections.
 *
 * <p>It ends exactly once, whichever comes first: a listened config changes ({@link #changed},
 * fan-out thread), its deadline passes ({@link HeldPolls#expireDue}), or the client goes away
 * ({@link #handle}, the connection's event loop). The one that wins the {@code state} race releases
 * the watches and answers; the answer is written on the connection's event loop.
 */
final class HeldPoll implements ConfigWatcher, Handler<Void> {
  private static final AtomicIntegerFieldUpdater<HeldPoll> STATE =
      AtomicIntegerFieldUpdater.newUpdater(HeldPoll.class, "state");
  private static final int WAITING = 0;
  private static final int ENDED = 1;

  private final HeldPolls owner;
  private final HttpServerResponse response;
  private final Context context;
  private final ConfigKey[] keys;

  /** Null unless some key's namespace was spelled "public", to echo it back that way. */
  private final boolean[] spelledPublic;

  private final String reportedIp;
  private final String remoteIp;
  final long deadlineNanos;

  /** Position in the owner's deadline heap, -1 when not in it; guarded by the owner's lock. */
  int heapIndex = -1;

  private volatile int state;

  HeldPoll(
      HeldPolls owner,
      HttpServerResponse response,
      Context context,
      ConfigKey[] keys,
      boolean[] spelledPublic,
      String reportedIp,
      String remoteIp,
      long deadlineNanos) {
    this.owner = owner;
    this.response = response;
    this.context = context;
    this.keys = keys;
    this.spelledPublic = spelledPublic;
    this.reportedIp = reportedIp;
    this.remoteIp = remoteIp;
    this.deadlineNanos = deadlineNanos;
  }

  ConfigKey[] keys() {
    return keys;
  }

  boolean isWaiting() {
    return state == WAITING;
  }

  @Override
  public String reportedIp() {
    return reportedIp;
  }

  @Override
  public String remoteIp() {
    return remoteIp;
  }

  /** A listened config changed: answer with it (one config per answer, as Nacos does). */
  @Override
  public void changed(ConfigKey key) {
    if (end()) {
      owner.release(this);
      respond(ListeningConfigs.encode(key, spelledPublic(key)) + "\n", true);
    }
  }

  /** Answers with configs found changed while registering; false if it had already ended. */
  boolean answerNow(String encodedChanges) {
    if (end()) {
      owner.release(this);
      respond(encodedChanges + "\n", true);
      return true;
    }
    return false;
  }

  /** The deadline passed (already out of the heap): answer with nothing changed. */
  void expire() {
    if (end()) {
      owner.unwatchAll(this);
      respond(null, false);
    }
  }

  /** The connection closed before an answer: just let go. */
  @Override
  public void handle(Void closed) {
    if (end()) {
      owner.release(this);
    }
  }

  private boolean end() {
    return STATE.compareAndSet(this, WAITING, ENDED);
  }

  private boolean spelledPublic(ConfigKey key) {
    if (spelledPublic == null) {
      return false;
    }
    for (int i = 0; i < keys.length; i++) {
      if (keys[i].equals(key)) {
        return spelledPublic[i];
      }
    }
    return false;
  }

  private void respond(String body, boolean noCache) {
    context.runOnContext(
        ignored -> {
          if (response.ended() || response.closed()) {
            return;
          }
          if (noCache) {
            ListenerRoutes.noCache(response);
          }
          if (body == null) {
            HttpResponses.empty(response, 200);
          } else {
            HttpResponses.text(response, 200, body);
          }
        });
  }

  @Override
  public String toString() {
    return "http-long-poll:" + remoteIp;
  }
}
