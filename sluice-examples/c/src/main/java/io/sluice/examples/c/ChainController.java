package io.sluice.examples.c;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** Answers with this instance, {@code c[lane]}: the end of the path. */
@RestController
class ChainController {
  private final String hop;

  ChainController(@Value("${spring.application.name}[${sluice.lane:base}]") String hop) {
    this.hop = hop;
  }

  @GetMapping("/c/httpTest")
  String httpTest() {
    return hop;
  }
}
