package io.sluice.e2e.dubbo;

import org.apache.dubbo.config.spring.context.annotation.EnableDubbo;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A plain Dubbo 3 application on Spring Boot: a provider of {@link HelloService} with the {@code
 * provider} profile, a consumer of it with the {@code consumer} profile (which answers over HTTP
 * what its Dubbo calls returned, for the tests to drive).
 */
@SpringBootApplication
@EnableDubbo
public class DubboApp {
  public static void main(String[] args) {
    SpringApplication.run(DubboApp.class, args);
  }
}
