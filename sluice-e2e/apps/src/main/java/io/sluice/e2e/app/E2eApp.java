package io.sluice.e2e.app;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableAsync;

/**
 * An ordinary Spring Boot web application with no Sluice dependency. The end-to-end tests run it
 * under the agent and drive it over HTTP; it knows of the agent only through the tiny context API
 * that the agent puts on the bootstrap class path, read reflectively by {@link LaneProbe}.
 */
@SpringBootApplication
@EnableAsync
public class E2eApp {
  public static void main(String[] args) {
    SpringApplication.run(E2eApp.class, args);
  }
}
