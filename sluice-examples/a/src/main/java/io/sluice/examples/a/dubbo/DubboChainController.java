package io.sluice.examples.a.dubbo;

import io.sluice.examples.api.BService;
import org.apache.dubbo.config.annotation.DubboReference;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * The chain's Dubbo paths, answered as {@code /a/httpTest} answers (e.g. {@code gateway > a[base] >
 * b[gray] > c[base]}): a calls b over Dubbo, and b goes on to c over Dubbo ({@code /a/dubboTest})
 * or over HTTP ({@code /a/mixedTest}). Dubbo's failures (a provider's refusal, no provider) reach
 * the client as a 500.
 */
@RestController
class DubboChainController {
  private final String hop;

  // Dubbo's defaults but for retries: a call another provider would answer differently is not
  // repeated, so a path shows the one provider that served it.
  @DubboReference(check = false, retries = 0, timeout = 5000)
  private BService b;

  DubboChainController(@Value("${spring.application.name}[${sluice.lane:base}]") String hop) {
    this.hop = hop;
  }

  /** a → b → c over Dubbo. */
  @GetMapping("/a/dubboTest")
  String dubboTest(@RequestHeader(name = "X-Chain-Entry", required = false) String entry) {
    return path(entry, b.dubboTest());
  }

  /** a → b over Dubbo, b → c over HTTP. */
  @GetMapping("/a/mixedTest")
  String mixedTest(@RequestHeader(name = "X-Chain-Entry", required = false) String entry) {
    return path(entry, b.mixedTest());
  }

  private String path(String entry, String rest) {
    String fromHere = hop + " > " + rest;
    return entry == null ? fromHere : entry + " > " + fromHere;
  }
}
