package io.sluice.server.config.grpc;

import io.sluice.server.config.ConfigCommand.Publish;
import io.sluice.server.config.ConfigCommand.Target;
import io.sluice.server.config.ConfigItem;
import io.sluice.server.config.ConfigKey;
import io.sluice.server.config.ConfigOutcome;
import io.sluice.server.config.ConfigService;
import io.sluice.server.config.ConfigTooLargeException;
import io.sluice.server.config.ConfigVersion;
import io.sluice.server.config.InvalidConfigException;
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
import io.sluice.server.protocol.grpc.NacosResponse;
import io.sluice.server.protocol.grpc.RequestContext;
import io.sluice.server.protocol.grpc.RequestRouter;
import io.sluice.server.replication.ReplicatorOverloadedException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.Collectors;

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
    ConfigQueryResponse response = new ConfigQueryResponse();
    try {
      config.validator().checkKey(request.tenant, request.group, request.dataId);
    } catch (InvalidConfigException e) {
      return done(response.fail(ErrorCodes.INVALID_PARAM, e.getMessage()));
    }
    ConfigItem item = config.find(ConfigKey.of(request.tenant, request.group, request.dataId));
    ConfigVersion version =
        item == null
            ? null
            : item.versionFor(
                context.clientIp(),
                context.connection().remoteIp(),
                request.tag,
                request.header(VIPSERVER_TAG));
    if (version == null) {
      return done(response.fail(ConfigQueryResponse.CONFIG_NOT_FOUND, "config data not exist"));
    }
    response.content = version.content();
    response.md5 = version.md5();
    response.lastModified = version.modifiedMillis();
    response.encryptedDataKey = version.encryptedDataKey();
    response.contentType =
        item.formal() != null ? item.formal().typeOrDefault() : version.typeOrDefault();
    response.beta = version == item.beta();
    if (version != item.formal() && version != item.beta()) {
      response.tag = tagOf(item, version);
    }
    return done(response);
  }

  CompletionStage<ConfigPublishResponse> publish(
      ConfigPublishRequest request, RequestContext context) {
    Map<String, String> extra = request.additionMap == null ? Map.of() : request.additionMap;
    String betaIps = extra.get("betaIps");
    String tag = extra.get("tag");
    Target target = Target.FORMAL;
    if (betaIps != null && !betaIps.isBlank()) {
      target = Target.BETA;
    } else if (tag != null && !tag.isBlank()) {
      target = Target.TAG;
    }
    Publish draft =
        new Publish(
            ConfigKey.of(request.tenant, nullToEmpty(request.group), nullToEmpty(request.dataId)),
            target,
            target == Target.TAG ? tag.trim() : null,
            request.content,
            null,
            extra.get("type"),
            extra.get("appName"),
            extra.get("desc"),
            extra.get("config_tags"),
            extra.get("encryptedDataKey"),
            extra.get("src_user"),
            context.clientIp(),
            extra.get("use"),
            extra.get("effect"),
            extra.get("schema"),
            target == Target.BETA ? parseIps(betaIps) : Set.of(),
            request.casMd5,
            0);
    return config
        .publish(draft)
        .handle(
            (outcome, failure) -> {
              ConfigPublishResponse response = new ConfigPublishResponse();
              if (failure != null) {
                return failed(response, failure);
              }
              if (outcome instanceof ConfigOutcome.CasConflict) {
                return response.fail(
                    NacosResponse.FAIL, "Cas publish fail,server md5 may have changed.");
              }
              if (outcome instanceof ConfigOutcome.Rejected rejected) {
                return response.fail(ErrorCodes.SERVER_ERROR, rejected.reason());
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
            tagged ? Target.TAG : Target.FORMAL,
            tagged ? request.tag.trim() : null,
            null,
            context.clientIp())
        .handle(
            (outcome, failure) -> {
              ConfigRemoveResponse response = new ConfigRemoveResponse();
              return failure == null ? response : failed(response, failure);
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
                    connection,
                    config.watchers(),
                    scheduler,
                    MAX_LISTENS_PER_CONNECTION,
                    pushAckMillis));
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

  private static <T extends NacosResponse> T failed(T response, Throwable failure) {
    Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
    if (cause instanceof InvalidConfigException || cause instanceof ConfigTooLargeException) {
      return response.fail(ErrorCodes.INVALID_PARAM, cause.getMessage());
    }
    if (cause instanceof ReplicatorOverloadedException) {
      return response.fail(ErrorCodes.OVER_THRESHOLD, cause.getMessage());
    }
    return response.fail(ErrorCodes.SERVER_ERROR, String.valueOf(cause.getMessage()));
  }

  private static String tagOf(ConfigItem item, ConfigVersion version) {
    for (Map.Entry<String, ConfigVersion> tag : item.tags().entrySet()) {
      if (tag.getValue() == version) {
        return tag.getKey();
      }
    }
    return null;
  }

  private static Set<String> parseIps(String ips) {
    return Arrays.stream(ips.split(","))
        .map(String::trim)
        .filter(ip -> !ip.isEmpty())
        .collect(Collectors.toUnmodifiableSet());
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
