package io.sluice.bench.orders;

import java.lang.reflect.Method;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * With {@code bench.routes=N}, N more routes beside {@code /orders/{id}}: {@code /orders1?id=7} to
 * {@code /ordersN?id=7}, each served by the same lookup. They are plain paths, which Spring MVC
 * finds by one map lookup; as patterns ({@code /orders1/{id}}) every request would be matched
 * against all N of them in turn, which at 500 routes cost the baseline ~60 µs a request. Sentinel's
 * Spring MVC adapter and the Sluice agent each make every route a resource of its own, so a driver
 * that spreads its requests over the routes gives Sentinel's metric log (one line per resource per
 * second) N + 1 lines to write every second, which is what its once-a-second stall grows with.
 */
@Configuration
public class ManyRoutes implements SmartInitializingSingleton {
  private final RequestMappingHandlerMapping mapping;
  private final OrdersController controller;
  private final int routes;

  ManyRoutes(
      @Qualifier("requestMappingHandlerMapping") RequestMappingHandlerMapping mapping,
      OrdersController controller,
      @Value("${bench.routes:0}") int routes) {
    this.mapping = mapping;
    this.controller = controller;
    this.routes = routes;
  }

  /** Before the web server starts, so no request finds a route missing. */
  @Override
  public void afterSingletonsInstantiated() {
    if (routes <= 0) {
      return;
    }
    Method handler;
    try {
      handler = OrdersController.class.getMethod("orderById", long.class);
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
    for (int k = 1; k <= routes; k++) {
      mapping.registerMapping(
          RequestMappingInfo.paths("/orders" + k)
              .methods(RequestMethod.GET)
              .options(mapping.getBuilderConfiguration())
              .build(),
          controller,
          handler);
    }
  }
}
