package io.sluice.examples.a;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.client.loadbalancer.LoadBalanced;
import org.springframework.cloud.openfeign.EnableFeignClients;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.web.reactive.function.client.WebClient;

/** Service a: the first hop behind the gateway. */
@SpringBootApplication
@EnableFeignClients
@EnableAsync
public class AApplication {
  public static void main(String[] args) {
    SpringApplication.run(AApplication.class, args);
  }

  /** A WebClient that resolves service names ({@code http://b}) through the load balancer. */
  @Bean
  @LoadBalanced
  WebClient.Builder loadBalancedWebClient() {
    return WebClient.builder();
  }
}
