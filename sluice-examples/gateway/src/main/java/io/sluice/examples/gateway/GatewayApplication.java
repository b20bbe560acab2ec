package io.sluice.examples.gateway;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The entry of the chain: a Spring Cloud Gateway whose one route sends {@code /a/**} to service a
 * through the load balancer ({@code lb://a}). The route is configuration only: see {@code
 * application.yml}.
 */
@SpringBootApplication
public class GatewayApplication {
  public static void main(String[] args) {
    SpringApplication.run(GatewayApplication.class, args);
  }
}
