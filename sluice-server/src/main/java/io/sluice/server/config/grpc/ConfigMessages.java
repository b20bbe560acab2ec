package io.sluice.server.config.grpc;

import io.sluice.server.protocol.grpc.NacosRequest;
import io.sluice.server.protocol.grpc.NacosResponse;
import io.sluice.server.protocol.grpc.RequestResource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The config messages of Nacos's gRPC protocol, field for field as they travel as JSON. */
public final class ConfigMessages {
  private ConfigMessages() {}

  abstract static class ConfigRequest extends NacosRequest {
    public String dataId;
    public String group;
    public String tenant;

    @Override
    public String module() {
      return "config";
    }

    /** Queries read; publishes and removals write. */
    boolean writes() {
      return true;
    }

    @Override
    public List<RequestResource> resources() {
      return List.of(new RequestResource(tenant, group, "config", dataId, writes()));
    }
  }

  public static final class ConfigQueryRequest extends ConfigRequest {
    public String tag;

    @Override
    boolean writes() {
      return false;
    }
  }

  public static final class ConfigQueryResponse extends NacosResponse {
    /** Nacos's error code for "no such config"; the client then returns null. */
    public static final int CONFIG_NOT_FOUND = 300;

    public String content;
    public String encryptedDataKey;
    public String contentType;
    public String md5;
    public long lastModified;
    public boolean beta;
    public String tag;
  }

  public static final class ConfigPublishRequest extends ConfigRequest {
    public String content;
    public String casMd5;
    public Map<String, String> additionMap = Map.of();
  }

  public static final class ConfigPublishResponse extends NacosResponse {}

  public static final class ConfigRemoveRequest extends ConfigRequest {
    public String tag;
  }

  public static final class ConfigRemoveResponse extends NacosResponse {}

  public static final class ConfigBatchListenRequest extends NacosRequest {
    public boolean listen = true;
    public List<ConfigListenContext> configListenContexts = List.of();

    @Override
    public String module() {
      return "config";
    }

    /** Listening reads every config listened to. */
    @Override
    public List<RequestResource> resources() {
      // A body may say "configListenContexts": null; the handler treats that as none, so here too.
      List<ConfigListenContext> contexts =
          configListenContexts == null ? List.of() : configListenContexts;
      List<RequestResource> read = new ArrayList<>(contexts.size());
      for (ConfigListenContext c : contexts) {
        if (c != null) {
          read.add(new RequestResource(c.tenant, c.group, "config", c.dataId, false));
        }
      }
      return read;
    }
  }

  public static final class ConfigListenContext {
    public String dataId;
    public String group;
    public String tenant;
    public String md5;
  }

  public static final class ConfigChangeBatchListenResponse extends NacosResponse {
    public List<ConfigContext> changedConfigs = List.of();
  }

  public static final class ConfigContext {
    public String dataId;
    public String group;
    public String tenant;

    ConfigContext(String dataId, String group, String tenant) {
      this.dataId = dataId;
      this.group = group;
      this.tenant = tenant;
    }
  }

  /** Server to client: a config this connection listens to changed; the client re-reads it. */
  public static final class ConfigChangeNotifyRequest extends ConfigRequest {
    ConfigChangeNotifyRequest(String dataId, String group, String tenant) {
      this.dataId = dataId;
      this.group = group;
      this.tenant = tenant;
    }
  }
}
