package io.sluice.server.naming.health;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Where the server may send health checks: address ranges (CIDRs), port ranges, and whether a
 * check's path may carry a query string. A persistent instance outside them is never probed (it
 * stays unhealthy), so that anyone who can register cannot make the server scan ports or forge
 * requests (an instance at {@code 127.0.0.1:22}, a path with {@code ?action=...}).
 *
 * <p>Immutable; built from option strings: CIDRs such as {@code 10.0.0.0/8} or {@code ::1/128},
 * ports such as {@code 80,8000-8999}.
 */
public final class HealthCheckTargets {
  /** Anything: every address, every port; query strings still refused. */
  public static final HealthCheckTargets ANY =
      parse(List.of("0.0.0.0/0", "::/0"), "1-65535", false);

  private final List<byte[]> networks;
  private final List<Integer> prefixes;
  private final List<int[]> ports;
  private final boolean queryAllowed;
  private final String description;

  private HealthCheckTargets(
      List<byte[]> networks,
      List<Integer> prefixes,
      List<int[]> ports,
      boolean queryAllowed,
      String description) {
    this.networks = networks;
    this.prefixes = prefixes;
    this.ports = ports;
    this.queryAllowed = queryAllowed;
    this.description = description;
  }

  /**
   * @throws IllegalArgumentException for a malformed CIDR or port range, naming it
   */
  public static HealthCheckTargets parse(List<String> cidrs, String portRanges, boolean query) {
    List<byte[]> networks = new ArrayList<>();
    List<Integer> prefixes = new ArrayList<>();
    for (String cidr : cidrs) {
      String trimmed = cidr.trim();
      int slash = trimmed.indexOf('/');
      try {
        byte[] address =
            InetAddress.getByName(slash < 0 ? trimmed : trimmed.substring(0, slash)).getAddress();
        int prefix =
            slash < 0 ? address.length * 8 : Integer.parseInt(trimmed.substring(slash + 1));
        if (!isLiteral(trimmed, slash) || prefix < 0 || prefix > address.length * 8) {
          throw new IllegalArgumentException("bad health check CIDR '" + cidr + "'");
        }
        networks.add(address);
        prefixes.add(prefix);
      } catch (UnknownHostException | NumberFormatException e) {
        throw new IllegalArgumentException("bad health check CIDR '" + cidr + "'");
      }
    }
    List<int[]> ranges = new ArrayList<>();
    for (String range : portRanges.split(",")) {
      String r = range.trim();
      try {
        int dash = r.indexOf('-');
        int low = Integer.parseInt(dash < 0 ? r : r.substring(0, dash).trim());
        int high = dash < 0 ? low : Integer.parseInt(r.substring(dash + 1).trim());
        if (low < 1 || high > 65535 || low > high) {
          throw new NumberFormatException();
        }
        ranges.add(new int[] {low, high});
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("bad health check port range '" + range + "'");
      }
    }
    return new HealthCheckTargets(
        networks,
        prefixes,
        ranges,
        query,
        String.join(",", cidrs) + " ports " + portRanges + (query ? " with queries" : ""));
  }

  /** Only literal addresses: a host name would make the check depend on DNS. */
  private static boolean isLiteral(String cidr, int slash) {
    String host = (slash < 0 ? cidr : cidr.substring(0, slash)).toLowerCase(Locale.ROOT);
    return host.indexOf(':') >= 0 || host.matches("[0-9.]+");
  }

  /**
   * Why the server will not check {@code ip:port} with {@code check}, or null when it may. CPU
   * only; the ip is a literal address as registered.
   */
  public String refusal(String ip, int port, HealthCheck check) {
    if (check.type() == HealthCheck.Type.HTTP && !queryAllowed && check.path().indexOf('?') >= 0) {
      return "health check paths with a query string are not allowed";
    }
    boolean portAllowed = false;
    for (int[] range : ports) {
      portAllowed |= port >= range[0] && port <= range[1];
    }
    if (!portAllowed) {
      return "port " + port + " is outside the allowed health check targets (" + description + ")";
    }
    byte[] address;
    try {
      if (!isLiteral(ip, -1)) {
        return "health checks go to literal addresses only, not '" + ip + "'";
      }
      address = InetAddress.getByName(ip).getAddress();
    } catch (UnknownHostException e) {
      return "'" + ip + "' is not an address";
    }
    for (int i = 0; i < networks.size(); i++) {
      if (matches(networks.get(i), prefixes.get(i), address)) {
        return null;
      }
    }
    return ip + " is outside the allowed health check targets (" + description + ")";
  }

  private static boolean matches(byte[] network, int prefix, byte[] address) {
    if (network.length != address.length) {
      return false;
    }
    int full = prefix / 8;
    for (int i = 0; i < full; i++) {
      if (network[i] != address[i]) {
        return false;
      }
    }
    int rest = prefix % 8;
    if (rest == 0) {
      return true;
    }
    int mask = 0xff << (8 - rest);
    return (network[full] & mask) == (address[full] & mask);
  }

  @Override
  public String toString() {
    return description;
  }
}
