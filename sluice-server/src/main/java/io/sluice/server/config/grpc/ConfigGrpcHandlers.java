package io.sluice.server.config.grpc;

import io.sluice.server.config.ConfigException;
import io.sluice.server.config.ConfigItem;
import io.sluice.server.config.ConfigKey;
import io.sluice.server.config.ConfigMeta;
import io.sluice.server.config.ConfigOutcome;
import io.sluice.server.config.ConfigPublish;
import io.sluice.server.config.ConfigService;
import io.sluice.server.config.ConfigTarget;
import io.sluice.server.config.ConfigVersion;
import io.sluice.server.config.grpc.ConfigMessages.ConfigBatchListenRequest;
import io.sluice.server.config.grpc.ConfigMessages.ConfigChangeBatchListenResponse;
import io.sluice.server.config.grpc.ConfigMessages.ConfigContext;
import io.sluice.server.config.grpc.ConfigMessages.ConfigListenContext;
import io.sluice.server.config.grpc.ConfigMessages.ConfigPublishRequest;
import io.sluice.server.config.grpc.ConfigMessages.ConfigPublishResponse;
import io.sluice.server.config.grpc.ConfigMessages.ConfigQueryRequest;
import io.sluice.server.config.grpc.ConfigMessages.ConfigQueryResponse;
import io.sluice.server.config.grpc.ConfigMessages.ConfigRemoveRequest;
import io.sluice.server.config.grpc.ConfigMessages.ConfigRemoveResponse;
import io.sluice.server.protocol.grpc.Connection;
import io.sluice.server.protocol.grpc.ConnectionListener;
import io.sluice.server.protocol.grpc.ConnectionRegistry;
import io.sluice.server.protocol.grpc.ErrorCodes;
import io.sluice.server.protocol.grpc.GrpcFailures;
import io.sluice.server.protocol.grpc.NacosResponse;
import io.sluice.server.protocol.grpc.RequestContext;
import io.sluice.server.protocol.grpc.RequestRouter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;

/** Serves the config requests of the gRPC protocol from {@link ConfigService}. */
public final class ConfigGrpcHandlers implements ConnectionListener {
  /** The official client puts 3,000 configs on a connection; leave room, but bound it. */
  static final int MAX_LISTENS_PER_CONNECTION = 10_000;

  private static final String VIPSERVER_TAG = "Vipserver-Tag";

  private final ConfigService config;
  private final ScheduledExecutorService scheduler;
  private final long pushAckMillis;
  private final Map<String, ConnectionConfigWatcher> watchersByConnection =
      new ConcurrentHashMap<>();

  private ConfigGrpcHandlers(
      ConfigService config, ScheduledExecutorService scheduler, long pushAckMillis) {
    this.config = config;
    this.scheduler = scheduler;
    this.pushAckMillis = pushAckMillis;
  }

  public static void install(
      ConfigService config,
      RequestRouter router,
      ConnectionRegistry connections,
      ScheduledExecutorService scheduler,
      long pushAckMillis) {
    ConfigGrpcHandlers handlers = new ConfigGrpcHandlers(config, scheduler, pushAckMillis);
    router.register(ConfigQueryRequest.class, handlers::query);
    router.register(ConfigPublishRequest.class, handlers::publish);
    router.register(ConfigRemoveRequest.class, handlers::remove);
    router.register(ConfigBatchListenRequest.class, handlers::batchListen);
    connections.addListener(handlers);
  }

  CompletionStage<ConfigQueryResponse> query(ConfigQueryRequest request, RequestContext context) {
    ConfigKey key;
    try {
      key = config.key(request.tenant, request.group, request.dataId);
    } catch (ConfigException e) {
      return done(GrpcFailures.fail(new ConfigQueryResponse(), e));
    }
    // Linearizable: in a cluster the read waits for this node to hold every acknowledged write.
    return config
        .read(key)
        .handle(
            (item, failure) ->
                failure != null
                    ? GrpcFailures.fail(new ConfigQueryResponse(), failure)
                    : answer(request, context, item));
  }

  private static ConfigQueryResponse answer(
      ConfigQueryRequest request, RequestContext context, ConfigItem item) {
    ConfigQueryResponse response = new ConfigQueryResponse();
    ConfigVersion version =
        item == null
            ? null
            : item.versionFor(
                context.clientIp(),
                context.connection().remoteIp(),
                request.tag,
                request.header(VIPSERVER_TAG));
    if (version == null) {
      return response.fail(ConfigQueryResponse.CONFIG_NOT_FOUND, "config data not exist");
    }
    response.content = version.content();
    response.md5 = version.md5();
    response.lastModified = version.modifiedMillis();
    response.encryptedDataKey = version.meta().encryptedDataKey();
    response.contentType =
        item.formal() != null ? item.formal().typeOrDefault() : version.typeOrDefault();
    response.beta = version == item.beta();
    if (version != item.formal() && version != item.beta()) {
      response.tag = item.tagOf(version);
    }
    return response;
  }

  CompletionStage<ConfigPublishResponse> publish(
      ConfigPublishRequest request, RequestContext context) {
    Map<String, String> extra = request.additionMap == null ? Map.of() : request.additionMap;
    ConfigMeta meta =
        ConfigMeta.builder()
            .type(extra.get("type"))
            .appName(extra.get("appName"))
            .desc(extra.get("desc"))
            .configTags(extra.get("config_tags"))
            .encryptedDataKey(extra.get("encryptedDataKey"))
            .srcUser(extra.get("src_user"))
            .srcIp(context.clientIp())
            .use(extra.get("use"))
            .effect(extra.get("effect"))
            .schema(extra.get("schema"))
            .build();
    ConfigPublish publish =
        ConfigPublish.of(
            ConfigKey.of(request.tenant, nullToEmpty(request.group), nullToEmpty(request.dataId)),
            extra.get("tag"),
            extra.get("betaIps"),
            request.content,
            meta,
            request.casMd5);
    return config
        .publish(publish)
        .handle(
            (outcome, failure) -> {
              ConfigPublishResponse response = new ConfigPublishResponse();
              if (failure != null) {
                return GrpcFailures.fail(response, failure);
              }
              if (outcome instanceof ConfigOutcome.CasConflict) {
                return response.fail(
                    NacosResponse.FAIL, "Cas publish fail,server md5 may have changed.");
              }
              return response;
            });
  }

  CompletionStage<ConfigRemoveResponse> remove(
      ConfigRemoveRequest request, RequestContext context) {
    boolean tagged = request.tag != null && !request.tag.isBlank();
    return config
        .remove(
            ConfigKey.of(request.tenant, nullToEmpty(request.group), nullToEmpty(request.dataId)),
            tagged ? ConfigTarget.TAG : ConfigTarget.FORMAL,
            tagged ? request.tag.trim() : null,
            null,
            context.clientIp())
        .handle(
            (outcome, failure) -> {
              ConfigRemoveResponse response = new ConfigRemoveResponse();
              if (failure != null) {
                return GrpcFailures.fail(response, failure);
              }
              return response;
            });
  }

  CompletionStage<ConfigChangeBatchListenResponse> batchListen(
      ConfigBatchListenRequest request, RequestContext context) {
    Connection connection = context.connection();
    ConnectionConfigWatcher watcher =
        watchersByConnection.computeIfAbsent(
            connection.id(),
            id ->
                new ConnectionConfigWatcher(
                    connection, config, scheduler, MAX_LISTENS_PER_CONNECTION, pushAckMillis));
    if (connection.isClosed()) {
      // Raced with the disconnect; don't leave its watches behind.
      onDisconnected(connection);
    }
    ConfigChangeBatchListenResponse response = new ConfigChangeBatchListenResponse();
    List<ConfigContext> changed = new ArrayList<>();
    String headerTag = request.header(VIPSERVER_TAG);
    List<ConfigListenContext> contexts =
        request.configListenContexts == null ? List.of() : request.configListenContexts;
    for (ConfigListenContext listen : contexts) {
      if (listen == null || isBlank(listen.dataId) || isBlank(listen.group)) {
        continue;
      }
      ConfigKey key = ConfigKey.of(listen.tenant, listen.group, listen.dataId);
      if (!request.listen) {
        watcher.unlisten(key);
        continue;
      }
      if (!watcher.listen(key, listen.dataId, listen.group, listen.tenant)) {
        return done(
            response.fail(
                ErrorCodes.OVER_THRESHOLD,
                "a connection may listen to at most " + MAX_LISTENS_PER_CONNECTION + " configs"));
      }
      ConfigItem item = config.find(key);
      ConfigVersion version =
          item == null
              ? null
              : item.versionFor(context.clientIp(), connection.remoteIp(), null, headerTag);
      String serverMd5 = version == null ? "" : version.md5();
      if (!serverMd5.equals(listen.md5 == null ? "" : listen.md5)) {
        changed.add(new ConfigContext(listen.dataId, listen.group, listen.tenant));
      }
    }
    response.changedConfigs = changed;
    return done(response);
  }

  @Override
  public void onDisconnected(Connection connection) {
    ConnectionConfigWatcher watcher = watchersByConnection.remove(connection.id());
    if (watcher != null) {
      watcher.unlistenAll();
    }
  }

  private static boolean isBlank(String s) {
    return s == null || s.isBlank();
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }

  private static <T> CompletionStage<T> done(T value) {
    return CompletableFuture.completedFuture(value);
  }
}
