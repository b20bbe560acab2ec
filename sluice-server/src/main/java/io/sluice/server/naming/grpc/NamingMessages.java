package io.sluice.server.naming.grpc;

import com.fasterxml.jackson.databind.util.RawValue;
import io.sluice.server.protocol.grpc.NacosRequest;
import io.sluice.server.protocol.grpc.NacosResponse;
import io.sluice.server.protocol.grpc.RequestResource;
import java.util.List;
import java.util.Map;

/** The naming messages of Nacos's gRPC protocol, field for field as they travel as JSON. */
public final class NamingMessages {
  private NamingMessages() {}

  abstract static class NamingRequest extends NacosRequest {
    public String namespace;
    public String serviceName;
    public String groupName;

    @Override
    public String module() {
      return "naming";
    }

    /** Registrations write; queries, subscriptions and lists read. */
    boolean writes() {
      return false;
    }

    @Override
    public List<RequestResource> resources() {
      return List.of(new RequestResource(namespace, groupName, "naming", serviceName, writes()));
    }
  }

  /** An instance as a client sends it; anything missing takes Nacos's default. */
  public static final class InstanceBody {
    public String instanceId;
    public String ip;
    public Integer port;
    public Double weight;
    public Boolean healthy;
    public Boolean enabled;
    public Boolean ephemeral;
    public String clusterName;
    public String serviceName;
    public Map<String, String> metadata;
  }

  public static final class InstanceRequest extends NamingRequest {
    public String type;

    @Override
    boolean writes() {
      return true;
    }

    public InstanceBody instance;
  }

  public static final class InstanceResponse extends NacosResponse {
    public String type;
  }

  public static final class BatchInstanceRequest extends NamingRequest {
    public String type;

    @Override
    boolean writes() {
      return true;
    }

    public List<InstanceBody> instances;
  }

  public static final class BatchInstanceResponse extends NacosResponse {
    public String type;
  }

  public static final class PersistentInstanceRequest extends NamingRequest {
    public String type;

    @Override
    boolean writes() {
      return true;
    }

    public InstanceBody instance;
  }

  public static final class ServiceQueryRequest extends NamingRequest {
    public String cluster;
    public boolean healthyOnly;
    public int udpPort;
  }

  public static final class QueryServiceResponse extends NacosResponse {
    public RawValue serviceInfo;
  }

  public static final class SubscribeServiceRequest extends NamingRequest {
    public boolean subscribe = true;
    public String clusters;
  }

  public static final class SubscribeServiceResponse extends NacosResponse {
    public RawValue serviceInfo;
  }

  public static final class ServiceListRequest extends NamingRequest {
    public int pageNo = 1;
    public int pageSize = 10;
    public String selector;
  }

  public static final class ServiceListResponse extends NacosResponse {
    public int count;
    public List<String> serviceNames = List.of();
  }
}
