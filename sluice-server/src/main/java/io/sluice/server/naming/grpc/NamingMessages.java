package io.sluice.server.naming.grpc;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.netty.buffer.ByteBuf;
import io.sluice.server.naming.ServiceInfoJson;
import io.sluice.server.protocol.grpc.NacosRequest;
import io.sluice.server.protocol.grpc.NacosResponse;
import io.sluice.server.protocol.grpc.RequestResource;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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

  /** A request about one instance: register or deregister it, ephemeral or persistent. */
  abstract static class OneInstanceRequest extends NamingRequest {
    public String type;
    public InstanceBody instance;

    @Override
    boolean writes() {
      return true;
    }
  }

  public static final class InstanceRequest extends OneInstanceRequest {}

  public static final class InstanceResponse extends NacosResponse {
    private static final byte[] REGISTERED = succeeded(NamingGrpcHandlers.REGISTER);
    private static final byte[] DEREGISTERED = succeeded(NamingGrpcHandlers.DEREGISTER);

    public String type;

    /** A successful (de)registration is the same bytes every time but for its request id. */
    @Override
    protected int encodedLengthAfterRequestId() {
      byte[] encoded = encoded();
      return encoded == null ? -1 : encoded.length;
    }

    @Override
    protected void writeAfterRequestId(ByteBuf into) {
      into.writeBytes(encoded());
    }

    private byte[] encoded() {
      if (resultCode != SUCCESS || message != null) {
        return null;
      }
      if (NamingGrpcHandlers.REGISTER.equals(type)) {
        return REGISTERED;
      }
      return NamingGrpcHandlers.DEREGISTER.equals(type) ? DEREGISTERED : null;
    }

    private static byte[] succeeded(String type) {
      byte[] field = ("\"type\":\"" + type + "\",").getBytes(StandardCharsets.US_ASCII);
      byte[] all = new byte[field.length + SUCCESS_FIELDS.length];
      System.arraycopy(field, 0, all, 0, field.length);
      System.arraycopy(SUCCESS_FIELDS, 0, all, field.length, SUCCESS_FIELDS.length);
      return all;
    }
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

  public static final class PersistentInstanceRequest extends OneInstanceRequest {}

  public static final class ServiceQueryRequest extends NamingRequest {
    public String cluster;
    public boolean healthyOnly;
    public int udpPort;
  }

  public static final class QueryServiceResponse extends WithServiceInfo {}

  public static final class SubscribeServiceRequest extends NamingRequest {
    public boolean subscribe = true;
    public String clusters;
  }

  public static final class SubscribeServiceResponse extends WithServiceInfo {}

  /**
   * A response carrying a service's instance list: when it succeeds, its JSON is a constant piece
   * and then the service view's cached {@code serviceInfo} as its last member, so answering a query
   * copies the list once (grpc-java), or not at all where the view keeps it in direct memory
   * (netty-h2), and encodes nothing per instance.
   */
  abstract static class WithServiceInfo extends NacosResponse {
    /**
     * The success fields (without their closing brace), then the list's name: everything between
     * the request id and the list.
     */
    private static final byte[] BEFORE_SERVICE_INFO = beforeServiceInfo();

    private static byte[] beforeServiceInfo() {
      byte[] name = ",\"serviceInfo\":".getBytes(StandardCharsets.US_ASCII);
      int fields = SUCCESS_FIELDS.length - 1; // without the '}' that closes the response
      byte[] all = Arrays.copyOf(SUCCESS_FIELDS, fields + name.length);
      System.arraycopy(name, 0, all, fields, name.length);
      return all;
    }

    /** The service view's rendering, shared with it: never written to. */
    @JsonIgnore ServiceInfoJson serviceInfo;

    @Override
    protected int encodedLengthAfterRequestId() {
      if (resultCode != SUCCESS || message != null || serviceInfo == null) {
        return -1;
      }
      return BEFORE_SERVICE_INFO.length + serviceInfo.utf8().length + 1;
    }

    @Override
    protected void writeAfterRequestId(ByteBuf into) {
      into.writeBytes(BEFORE_SERVICE_INFO).writeBytes(serviceInfo.utf8()).writeByte('}');
    }

    @Override
    protected ByteBuf sharedTail() {
      return serviceInfo.asLastMember();
    }

    @Override
    protected void writeBeforeSharedTail(ByteBuf head) {
      head.writeBytes(BEFORE_SERVICE_INFO);
    }
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
