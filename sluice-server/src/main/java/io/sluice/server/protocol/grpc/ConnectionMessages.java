package io.sluice.server.protocol.grpc;

import java.util.Map;

/** The connection-level messages of the protocol: handshake, keep-alive and reset. */
public final class ConnectionMessages {
  private ConnectionMessages() {}

  /** Unary, before the connection is registered: "are you there, and what is my id?" */
  public static final class ServerCheckRequest extends NacosRequest {
    @Override
    public String module() {
      return "internal";
    }
  }

  public static final class ServerCheckResponse extends NacosResponse {
    public String connectionId;
    public boolean supportAbilityNegotiation;
  }

  /** First message of the bidirectional stream: registers the connection. */
  public static final class ConnectionSetupRequest extends NacosRequest {
    public String clientVersion;
    public String tenant;
    public Map<String, String> labels = Map.of();
    public Map<String, Boolean> abilityTable = Map.of();

    @Override
    public String module() {
      return "internal";
    }
  }

  /** Server to client, right after setup: the abilities this server supports. */
  public static final class SetupAckRequest extends NacosRequest {
    public Map<String, Boolean> abilityTable;

    @Override
    public String module() {
      return "internal";
    }
  }

  public static final class SetupAckResponse extends NacosResponse {}

  /** Client keep-alive on the unary call. */
  public static final class HealthCheckRequest extends NacosRequest {
    @Override
    public String module() {
      return "internal";
    }
  }

  public static final class HealthCheckResponse extends NacosResponse {}

  /** Server to client on an idle connection: "are you still there?" */
  public static final class ClientDetectionRequest extends NacosRequest {
    @Override
    public String module() {
      return "internal";
    }
  }

  public static final class ClientDetectionResponse extends NacosResponse {}

  /** Server to client: reconnect, optionally to another server. */
  public static final class ConnectResetRequest extends NacosRequest {
    public String serverIp;
    public String serverPort;
    public String connectionId;

    @Override
    public String module() {
      return "internal";
    }
  }

  public static final class ConnectResetResponse extends NacosResponse {}

  /** The reply to a request the server cannot accept, such as one on an unregistered connection. */
  public static final class ErrorResponse extends NacosResponse {
    public static ErrorResponse of(int errorCode, String message) {
      return new ErrorResponse().fail(errorCode, message);
    }
  }
}
