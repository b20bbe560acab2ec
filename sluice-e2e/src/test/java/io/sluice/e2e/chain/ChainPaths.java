package io.sluice.e2e.chain;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The paths requests take through a chain, as its services answer them ({@code gateway > a[base] >
 * b[gray] > c[base]}): what the chain's scenario tests count and compare.
 */
final class ChainPaths {
  private ChainPaths() {}

  /**
   * Sends {@code n} requests through the gateway; counts the answers (paths), failing on any that
   * is not a 200.
   */
  static Map<String, Integer> count(DemoChain chain, String path, int n, String... headers)
      throws Exception {
    Map<String, Integer> byPath = new HashMap<>();
    for (String body : bodies(chain, path, n, headers)) {
      byPath.merge(body, 1, Integer::sum);
    }
    return byPath;
  }

  /** {@code n} answers through the gateway, each checked to be a 200. */
  static List<String> bodies(DemoChain chain, String path, int n, String... headers)
      throws Exception {
    List<String> bodies = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      HttpResponse<String> response = chain.get(path, headers);
      assertThat(response.statusCode()).as("%s: %s", path, response.body()).isEqualTo(200);
      bodies.add(response.body());
    }
    return bodies;
  }

  /** The answer's body if it is a 200, else its status. */
  static String body(DemoChain chain, String path, String... headers) throws Exception {
    HttpResponse<String> response = chain.get(path, headers);
    return response.statusCode() == 200 ? response.body() : response.statusCode() + "";
  }
}
