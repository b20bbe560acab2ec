package io.sluice.examples.b;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.client.loadbalancer.LoadBalanced;
import org.springframework.context.annotation.Bean;
import org.springframework.web.client.RestClient;

/** Service b: the middle hop. */
@SpringBootApplication
public class BApplication {
  public static void main(String[] args) {
    SpringApplication.run(BApplication.class, args);
  }

  /** A RestClient that resolves service names ({@code http://c}) through the load balancer. */
  @Bean
  @LoadBalanced
  RestClient.Builder loadBalancedRestClient() {
    return RestClient.builder();
  }
}
