package io.sluice.examples.b;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;

/** Answers with this instance ({@code b[lane]}) followed by the path c answered. */
@RestController
class ChainController {
  private final String hop;
  private final RestClient c;

  ChainController(
      @Value("${spring.application.name}[${sluice.lane:base}]") String hop,
      RestClient.Builder loadBalanced) {
    this.hop = hop;
    this.c = loadBalanced.baseUrl("http://c").build();
  }

  @GetMapping("/b/httpTest")
  String httpTest() {
    return hop + " > " + c.get().uri("/c/httpTest").retrieve().body(String.class);
  }
}
