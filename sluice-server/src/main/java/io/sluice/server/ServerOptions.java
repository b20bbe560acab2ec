package io.sluice.server;

import java.nio.file.Path;
import java.util.Objects;

/**
 * What a sluice-server instance listens on and where it keeps its data. Immutable; build one with
 * {@link #builder()}.
 *
 * <p>The gRPC port follows Nacos's convention of the HTTP port plus {@value #GRPC_PORT_OFFSET},
 * which is what the official client derives from the address it is given.
 */
public final class ServerOptions {
  public static final String DEFAULT_BIND_ADDRESS = "127.0.0.1";
  public static final int DEFAULT_HTTP_PORT = 8848;
  public static final int GRPC_PORT_OFFSET = 1000;
  public static final Path DEFAULT_DATA_DIR = Path.of("data");

  private final String bindAddress;
  private final int httpPort;
  private final Path dataDir;

  private ServerOptions(Builder builder) {
    this.bindAddress = builder.bindAddress;
    this.httpPort = builder.httpPort;
    this.dataDir = builder.dataDir;
  }

  public static Builder builder() {
    return new Builder();
  }

  public String bindAddress() {
    return bindAddress;
  }

  /** The HTTP port; 0 asks the operating system for a free one (tests). */
  public int httpPort() {
    return httpPort;
  }

  public Path dataDir() {
    return dataDir;
  }

  @Override
  public String toString() {
    return "ServerOptions{bind="
        + bindAddress
        + ", httpPort="
        + httpPort
        + ", dataDir="
        + dataDir
        + '}';
  }

  public static final class Builder {
    private String bindAddress = DEFAULT_BIND_ADDRESS;
    private int httpPort = DEFAULT_HTTP_PORT;
    private Path dataDir = DEFAULT_DATA_DIR;

    private Builder() {}

    public Builder bindAddress(String bindAddress) {
      Objects.requireNonNull(bindAddress, "bindAddress");
      if (bindAddress.isBlank()) {
        throw new IllegalArgumentException("bind address must not be blank");
      }
      this.bindAddress = bindAddress;
      return this;
    }

    public Builder httpPort(int httpPort) {
      // The gRPC port sits 1000 above the HTTP port and must itself be a valid port.
      if (httpPort < 0 || httpPort > 65535 - GRPC_PORT_OFFSET) {
        throw new IllegalArgumentException(
            "HTTP port must be between 0 and " + (65535 - GRPC_PORT_OFFSET) + ", was " + httpPort);
      }
      this.httpPort = httpPort;
      return this;
    }

    public Builder dataDir(Path dataDir) {
      this.dataDir = Objects.requireNonNull(dataDir, "dataDir");
      return this;
    }

    public ServerOptions build() {
      return new ServerOptions(this);
    }
  }
}
