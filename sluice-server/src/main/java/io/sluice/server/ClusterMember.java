package io.sluice.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One node of a cluster as the cluster list names it: the address and HTTP port its clients use
 * (gRPC on port + 1000, Raft on port − the Raft offset). Parsed from Nacos's {@code cluster.conf}
 * (one {@code ip[:port]} a line, {@code #} comments, blank lines ignored, the port 8848 when
 * omitted) or from an inline comma-separated list; both give every node the same list, which is
 * what each node finds itself in.
 */
public record ClusterMember(String host, int port) {
  public ClusterMember {
    Objects.requireNonNull(host, "host");
    if (host.isBlank() || !host.matches("[A-Za-z0-9.-]+")) {
      throw new IllegalArgumentException(
          "cluster member host must be an IPv4 address or host name, was '" + host + "'");
    }
    if (port < 1 || port > 65535 - ServerOptions.GRPC_PORT_OFFSET) {
      throw new IllegalArgumentException(
          "cluster member port must be between 1 and "
              + (65535 - ServerOptions.GRPC_PORT_OFFSET)
              + ", was "
              + port);
    }
  }

  /** "host:port", as cluster.conf and Nacos's member list write it. */
  public String address() {
    return host + ":" + port;
  }

  /** The member's id in the Raft group: stable as long as its address is. */
  public String peerId() {
    return host + "_" + port;
  }

  /** The member a Raft peer id ({@link #peerId()}) names. */
  public static ClusterMember ofPeerId(String peerId) {
    int separator = peerId.lastIndexOf('_');
    if (separator < 0) {
      throw new IllegalArgumentException("'" + peerId + "' is not a cluster member's peer id");
    }
    try {
      return new ClusterMember(
          peerId.substring(0, separator), Integer.parseInt(peerId.substring(separator + 1)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + peerId + "' is not a cluster member's peer id");
    }
  }

  /** One {@code ip[:port]} entry. */
  public static ClusterMember parse(String entry) {
    String text = entry.strip();
    int colon = text.lastIndexOf(':');
    if (colon < 0) {
      return new ClusterMember(text, ServerOptions.DEFAULT_HTTP_PORT);
    }
    String port = text.substring(colon + 1);
    try {
      return new ClusterMember(text.substring(0, colon), Integer.parseInt(port));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "cluster member '" + entry + "': port '" + port + "' is not a number");
    }
  }

  /** An inline list, {@code host:port,host:port,...}. */
  public static List<ClusterMember> parseList(String list) {
    List<String> entries = new ArrayList<>();
    for (String entry : list.split(",")) {
      if (!entry.isBlank()) {
        entries.add(entry);
      }
    }
    return distinct(entries, "--peers");
  }

  /** Nacos's cluster.conf: one {@code ip[:port]} a line; {@code #} starts a comment. */
  public static List<ClusterMember> readClusterConf(Path file) throws IOException {
    List<String> entries = new ArrayList<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      int hash = line.indexOf('#');
      String entry = (hash >= 0 ? line.substring(0, hash) : line).strip();
      if (!entry.isEmpty()) {
        entries.add(entry);
      }
    }
    return distinct(entries, file.toString());
  }

  private static List<ClusterMember> distinct(List<String> entries, String source) {
    Set<ClusterMember> members = new LinkedHashSet<>();
    for (String entry : entries) {
      if (!members.add(parse(entry))) {
        throw new IllegalArgumentException(source + ": '" + entry.strip() + "' is listed twice");
      }
    }
    if (members.isEmpty()) {
      throw new IllegalArgumentException(source + ": no cluster member listed");
    }
    return List.copyOf(members);
  }
}
