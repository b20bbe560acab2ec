package io.sluice.e2e.lanes;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.client.loadbalancer.LoadBalanced;
import org.springframework.cloud.openfeign.EnableFeignClients;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * One service of the lanes test chain (run as lanes-a, lanes-b, lanes-c, in base and lane
 * instances): Spring MVC, Spring Cloud Alibaba discovery, and every load-balanced client the agent
 * routes by lane. It knows nothing of lanes: the agent does all of it.
 */
@SpringBootApplication
@EnableAsync
@EnableFeignClients
public class LanesServiceApp {
  public static void main(String[] args) {
    SpringApplication.run(LanesServiceApp.class, args);
  }

  @Bean
  @LoadBalanced
  RestTemplate restTemplate() {
    return new RestTemplate();
  }

  @Bean
  @LoadBalanced
  RestClient.Builder restClientBuilder() {
    return RestClient.builder();
  }

  @Bean
  @LoadBalanced
  WebClient.Builder webClientBuilder() {
    return WebClient.builder();
  }
}
