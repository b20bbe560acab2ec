package io.sluice.server.naming.grpc;

import io.sluice.server.naming.Instance;
import io.sluice.server.naming.InstanceValidator;
import io.sluice.server.naming.NamingException;
import io.sluice.server.naming.NamingOutcome;
import io.sluice.server.naming.NamingService;
import io.sluice.server.naming.ServiceKey;
import io.sluice.server.naming.ServicePage;
import io.sluice.server.naming.grpc.NamingMessages.BatchInstanceRequest;
import io.sluice.server.naming.grpc.NamingMessages.BatchInstanceResponse;
import io.sluice.server.naming.grpc.NamingMessages.InstanceBody;
import io.sluice.server.naming.grpc.NamingMessages.InstanceRequest;
import io.sluice.server.naming.grpc.NamingMessages.InstanceResponse;
import io.sluice.server.naming.grpc.NamingMessages.PersistentInstanceRequest;
import io.sluice.server.naming.grpc.NamingMessages.QueryServiceResponse;
import io.sluice.server.naming.grpc.NamingMessages.ServiceListRequest;
import io.sluice.server.naming.grpc.NamingMessages.ServiceListResponse;
import io.sluice.server.naming.grpc.NamingMessages.ServiceQueryRequest;
import io.sluice.server.naming.grpc.NamingMessages.SubscribeServiceRequest;
import io.sluice.server.naming.grpc.NamingMessages.SubscribeServiceResponse;
import io.sluice.server.protocol.grpc.Connection;
import io.sluice.server.protocol.grpc.ConnectionListener;
import io.sluice.server.protocol.grpc.ConnectionRegistry;
import io.sluice.server.protocol.grpc.ErrorCodes;
import io.sluice.server.protocol.grpc.GrpcFailures;
import io.sluice.server.protocol.grpc.RequestContext;
import io.sluice.server.protocol.grpc.RequestRouter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Serves the naming requests of the gRPC protocol. A connection owns the ephemeral instances it
 * registers and the subscriptions it makes; both go the moment it closes.
 */
public final class NamingGrpcHandlers implements ConnectionListener {
  static final String REGISTER = "registerInstance";
  static final String DEREGISTER = "deregisterInstance";
  static final String BATCH_REGISTER = "batchRegisterInstance";
  static final String BATCH_DEREGISTER = "batchDeregisterInstance";

  /** One connection may subscribe to this many services; beyond, subscribe fails. */
  static final int MAX_SUBSCRIPTIONS_PER_CONNECTION = 10_000;

  static final int MAX_PAGE_SIZE = 10_000;

  private final NamingService naming;
  private final ScheduledExecutorService pushThread;
  private final long pushAckMillis;
  private final GrpcSubscriber.PushStats stats = new GrpcSubscriber.PushStats();
  private final Map<String, Map<ServiceKey, GrpcSubscriber>> subscriptionsByConnection =
      new ConcurrentHashMap<>();

  private NamingGrpcHandlers(
      NamingService naming, ScheduledExecutorService pushThread, long pushAckMillis) {
    this.naming = naming;
    this.pushThread = pushThread;
    this.pushAckMillis = pushAckMillis;
  }

  public static NamingGrpcHandlers install(
      NamingService naming,
      RequestRouter router,
      ConnectionRegistry connections,
      ScheduledExecutorService pushThread,
      long pushAckMillis) {
    NamingGrpcHandlers handlers = new NamingGrpcHandlers(naming, pushThread, pushAckMillis);
    router.register(InstanceRequest.class, NamingBodyDecoders::instance, handlers::instance);
    router.register(BatchInstanceRequest.class, NamingBodyDecoders::batch, handlers::batch);
    router.register(
        PersistentInstanceRequest.class, NamingBodyDecoders::persistent, handlers::persistent);
    router.register(ServiceQueryRequest.class, NamingBodyDecoders::query, handlers::query);
    router.register(
        SubscribeServiceRequest.class, NamingBodyDecoders::subscribe, handlers::subscribe);
    router.register(ServiceListRequest.class, handlers::list);
    connections.addListener(handlers);
    return handlers;
  }

  /** Pushes sent, bytes pushed and failed pushes since start. */
  public long[] pushCounters() {
    return new long[] {stats.pushes.sum(), stats.bytes.sum(), stats.failures.sum()};
  }

  CompletionStage<InstanceResponse> instance(InstanceRequest request, RequestContext context) {
    InstanceResponse response = new InstanceResponse();
    response.type = request.type;
    Connection connection = context.connection();
    try {
      ServiceKey service = serviceOf(request.namespace, request.groupName, request.serviceName);
      InstanceBody body = require(request.instance);
      if (REGISTER.equals(request.type)) {
        naming.registerEphemeral(connection.id(), service, toInstance(service, body, true));
      } else if (DEREGISTER.equals(request.type)) {
        InstanceValidator.checkIp(body.ip);
        naming.deregisterEphemeral(connection.id(), service, body.ip, portOf(body));
      } else {
        return done(response.fail(ErrorCodes.INVALID_PARAM, "unknown type " + request.type));
      }
      forgetIfClosed(connection);
      return done(response);
    } catch (NamingException e) {
      return done(GrpcFailures.fail(response, e));
    }
  }

  CompletionStage<BatchInstanceResponse> batch(
      BatchInstanceRequest request, RequestContext context) {
    BatchInstanceResponse response = new BatchInstanceResponse();
    response.type = request.type;
    Connection connection = context.connection();
    try {
      ServiceKey service = serviceOf(request.namespace, request.groupName, request.serviceName);
      List<InstanceBody> bodies = request.instances == null ? List.of() : request.instances;
      if (BATCH_REGISTER.equals(request.type)) {
        List<Instance> instances = new ArrayList<>(bodies.size());
        for (InstanceBody body : bodies) {
          instances.add(toInstance(service, require(body), true));
        }
        naming.publishEphemeral(connection.id(), service, instances);
      } else if (BATCH_DEREGISTER.equals(request.type)) {
        List<String> endpoints = new ArrayList<>(bodies.size());
        for (InstanceBody body : bodies) {
          InstanceBody b = require(body);
          endpoints.add(b.ip + ":" + portOf(b));
        }
        naming.deregisterEphemeral(
            connection.id(), service, i -> endpoints.contains(i.ip() + ":" + i.port()));
      } else {
        return done(response.fail(ErrorCodes.INVALID_PARAM, "unknown type " + request.type));
      }
      forgetIfClosed(connection);
      return done(response);
    } catch (NamingException e) {
      return done(GrpcFailures.fail(response, e));
    }
  }

  CompletionStage<InstanceResponse> persistent(
      PersistentInstanceRequest request, RequestContext context) {
    InstanceResponse response = new InstanceResponse();
    response.type = request.type;
    CompletableFuture<NamingOutcome> write;
    try {
      ServiceKey service = serviceOf(request.namespace, request.groupName, request.serviceName);
      InstanceBody body = require(request.instance);
      if (REGISTER.equals(request.type)) {
        write = naming.registerPersistent(service, toInstance(service, body, false));
      } else if (DEREGISTER.equals(request.type)) {
        InstanceValidator.checkIp(body.ip);
        write = naming.deregisterPersistent(service, body.ip, portOf(body), body.clusterName);
      } else {
        return done(response.fail(ErrorCodes.INVALID_PARAM, "unknown type " + request.type));
      }
    } catch (NamingException e) {
      return done(GrpcFailures.fail(response, e));
    }
    return write.handle(
        (outcome, failure) -> {
          if (failure != null) {
            return GrpcFailures.fail(response, failure);
          }
          return response;
        });
  }

  CompletionStage<QueryServiceResponse> query(ServiceQueryRequest request, RequestContext context) {
    QueryServiceResponse response = new QueryServiceResponse();
    try {
      ServiceKey service = serviceOf(request.namespace, request.groupName, request.serviceName);
      response.serviceInfo =
          naming.viewOrEmpty(service).serviceInfo(request.cluster, request.healthyOnly, false);
      return done(response);
    } catch (NamingException e) {
      return done(GrpcFailures.fail(response, e));
    }
  }

  CompletionStage<SubscribeServiceResponse> subscribe(
      SubscribeServiceRequest request, RequestContext context) {
    SubscribeServiceResponse response = new SubscribeServiceResponse();
    Connection connection = context.connection();
    ServiceKey service;
    try {
      service = serviceOf(request.namespace, request.groupName, request.serviceName);
    } catch (NamingException e) {
      return done(GrpcFailures.fail(response, e));
    }
    String clusters = request.clusters == null ? "" : request.clusters;
    Map<ServiceKey, GrpcSubscriber> subscriptions =
        subscriptionsByConnection.computeIfAbsent(connection.id(), id -> new ConcurrentHashMap<>());
    if (request.subscribe) {
      GrpcSubscriber existing = subscriptions.get(service);
      if (existing != null) {
        existing.clusters(clusters);
      } else {
        if (subscriptions.size() >= MAX_SUBSCRIPTIONS_PER_CONNECTION) {
          return done(
              response.fail(
                  ErrorCodes.OVER_THRESHOLD,
                  "a connection may subscribe to at most "
                      + MAX_SUBSCRIPTIONS_PER_CONNECTION
                      + " services"));
        }
        GrpcSubscriber subscriber =
            new GrpcSubscriber(connection, service, clusters, pushThread, stats, pushAckMillis);
        subscriptions.put(service, subscriber);
        naming.subscribe(service, subscriber);
      }
      forgetIfClosed(connection);
    } else {
      GrpcSubscriber removed = subscriptions.remove(service);
      if (removed != null) {
        removed.cancel();
        naming.unsubscribe(service, removed);
      }
    }
    response.serviceInfo = naming.viewOrEmpty(service).serviceInfo(clusters, false, false);
    return done(response);
  }

  CompletionStage<ServiceListResponse> list(ServiceListRequest request, RequestContext context) {
    ServiceListResponse response = new ServiceListResponse();
    if (request.pageNo < 1 || request.pageSize < 1 || request.pageSize > MAX_PAGE_SIZE) {
      return done(
          response.fail(
              ErrorCodes.INVALID_PARAM,
              "pageNo must be at least 1 and pageSize between 1 and " + MAX_PAGE_SIZE));
    }
    ServicePage page =
        naming.list(request.namespace, request.groupName, request.pageNo, request.pageSize);
    response.count = page.count();
    response.serviceNames = page.names();
    return done(response);
  }

  @Override
  public void onDisconnected(Connection connection) {
    naming.removeOwner(connection.id());
    Map<ServiceKey, GrpcSubscriber> subscriptions =
        subscriptionsByConnection.remove(connection.id());
    if (subscriptions != null) {
      for (Map.Entry<ServiceKey, GrpcSubscriber> entry : subscriptions.entrySet()) {
        entry.getValue().cancel();
        naming.unsubscribe(entry.getKey(), entry.getValue());
      }
    }
  }

  /**
   * A request that raced with its connection's close may have registered after the cleanup ran; run
   * the cleanup again so nothing outlives the connection.
   */
  private void forgetIfClosed(Connection connection) {
    if (connection.isClosed()) {
      onDisconnected(connection);
    }
  }

  private static ServiceKey serviceOf(String namespace, String group, String serviceName) {
    if (serviceName == null || serviceName.isBlank()) {
      throw NamingException.invalid("serviceName must not be blank");
    }
    ServiceKey service = ServiceKey.parse(namespace, group, serviceName);
    InstanceValidator.checkService(service);
    return service;
  }

  private static InstanceBody require(InstanceBody body) {
    if (body == null) {
      throw NamingException.invalid("instance must be given");
    }
    return body;
  }

  private static int portOf(InstanceBody body) {
    if (body.port == null) {
      throw NamingException.invalid("port must be given");
    }
    return body.port;
  }

  private static Instance toInstance(ServiceKey service, InstanceBody body, boolean ephemeral) {
    return InstanceValidator.instance(
        service,
        body.instanceId,
        body.ip,
        portOf(body),
        body.weight,
        body.healthy,
        body.enabled,
        ephemeral,
        body.clusterName,
        body.metadata);
  }

  private static <T> CompletionStage<T> done(T value) {
    return CompletableFuture.completedFuture(value);
  }
}
