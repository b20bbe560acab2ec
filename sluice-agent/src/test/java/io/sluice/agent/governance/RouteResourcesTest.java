package io.sluice.agent.governance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RouteResourcesTest {
  private final List<String> resolved = new ArrayList<>();
  private final AtomicInteger overflows = new AtomicInteger();
  private final RouteResources<String> routes =
      new RouteResources<>(
          name -> {
            resolved.add(name);
            return "handle:" + name;
          },
          3,
          overflows::incrementAndGet);

  @Test
  void namesARouteByMethodAndPatternAndResolvesItOnce() {
    for (int i = 0; i < 5; i++) {
      assertThat(routes.resolve("GET", "/orders/{id}")).isEqualTo("handle:GET /orders/{id}");
    }
    assertThat(routes.resolve("POST", "/orders/{id}")).isEqualTo("handle:POST /orders/{id}");

    assertThat(resolved).containsExactly("GET /orders/{id}", "POST /orders/{id}");
  }

  @Test
  void unusualMethodsShareOneResourcePerRoute() {
    assertThat(routes.resolve("PROPFIND", "/files")).isEqualTo("handle:OTHER /files");
    assertThat(routes.resolve("MKCOL", "/files")).isEqualTo("handle:OTHER /files");
    assertThat(resolved).hasSize(1);
  }

  @Test
  void stopsGoverningNewRoutesPastTheCap() {
    routes.resolve("GET", "/a");
    routes.resolve("GET", "/b");
    routes.resolve("GET", "/c");

    assertThat(routes.resolve("GET", "/d")).isNull();
    assertThat(routes.resolve("GET", "/a")).isEqualTo("handle:GET /a");
    assertThat(overflows.get()).isEqualTo(1);
    assertThat(routes.size()).isEqualTo(3);
  }
}
