package io.sluice.bench.orders;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The order-query service of Sentinel's published overhead table: one route, {@code GET
 * /orders/{id}}, whose handler takes 5 ± 2 ms. Governed by Sentinel through its official Spring MVC
 * adapter when {@code bench.sentinel} is not {@code off} ({@link SentinelSetup}), or by the Sluice
 * agent from outside, or by nothing (the baseline).
 */
@SpringBootApplication
public class OrderServiceApp {
  public static void main(String[] args) {
    SpringApplication.run(OrderServiceApp.class, args);
  }
}
