package io.sluice.e2e.lanes.gateway;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.context.annotation.Bean;

/**
 * The entry of the lanes test chain: a Spring Cloud Gateway routing {@code /a/**} to {@code
 * lb://lanes-a} (route id {@code a-route}), with Spring Cloud Alibaba discovery. No lane code.
 */
@SpringBootApplication
public class LanesGatewayApp {
  public static void main(String[] args) {
    SpringApplication.run(LanesGatewayApp.class, args);
  }

  @Bean
  RouteLocator routes(RouteLocatorBuilder routes) {
    return routes
        .routes()
        .route("a-route", r -> r.path("/a/**").filters(f -> f.stripPrefix(1)).uri("lb://lanes-a"))
        .build();
  }
}
