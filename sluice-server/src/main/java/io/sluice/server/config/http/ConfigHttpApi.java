package io.sluice.server.config.http;

import io.sluice.server.clock.ServerClock;
import io.sluice.server.cluster.http.MemberCalls;
import io.sluice.server.config.ConfigService;
import io.sluice.server.protocol.http.HttpAccess;
import io.sluice.server.protocol.http.HttpRoutes;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import java.util.List;

/**
 * The config center's HTTP Open API, as Nacos 2.3 serves it under {@code /nacos}: configs (v1 and
 * v2), the long-poll listener, and history. See {@link ConfigRoutes}, {@link ListenerRoutes} and
 * {@link HistoryRoutes} for the endpoints.
 */
public final class ConfigHttpApi implements HttpRoutes {
  /** How often held long-polls are checked for their deadline; it bounds how late one answers. */
  static final long SWEEP_MILLIS = 100;

  /** Form encoding can triple content (a UTF-8 byte becomes {@code %XX}); plus the other fields. */
  static final long FORM_OVERHEAD_BYTES = 64 * 1024;

  private final Vertx vertx;
  private final ConfigRoutes configs;
  private final HistoryRoutes history;
  private final ListenerRoutes listener;
  private final HeldPolls held;

  /**
   * @param maxHeldPolls long-polls held at once; beyond it a poll is answered 503
   */
  public ConfigHttpApi(
      ConfigService config, Vertx vertx, ServerClock clock, int maxHeldPolls, MemberCalls members) {
    this.vertx = vertx;
    long maxBodyBytes = config.maxContentBytes() * 3 + FORM_OVERHEAD_BYTES;
    this.configs = new ConfigRoutes(config, maxBodyBytes);
    this.history = new HistoryRoutes(config);
    this.held = new HeldPolls(config, clock, maxHeldPolls);
    this.listener = new ListenerRoutes(config, held, members);
  }

  @Override
  public void mount(Router router) {
    configs.mount(router);
    listener.mount(router);
    history.mount(router);
    vertx.setPeriodic(SWEEP_MILLIS, timer -> held.expireDue());
  }

  @Override
  public boolean takeDirectly(HttpServerRequest request, HttpAccess access) {
    return listener.takeDirectly(request, access);
  }

  @Override
  public List<String> directOperations() {
    return List.of("POST " + ListenerRoutes.PATH);
  }

  /** How many long-polls are held now. */
  public int heldPolls() {
    return held.size();
  }
}
