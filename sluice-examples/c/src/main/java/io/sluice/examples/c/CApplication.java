package io.sluice.examples.c;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** Service c: the last hop. */
@SpringBootApplication
public class CApplication {
  public static void main(String[] args) {
    SpringApplication.run(CApplication.class, args);
  }
}
