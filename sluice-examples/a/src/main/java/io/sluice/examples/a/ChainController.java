package io.sluice.examples.a;

import java.util.concurrent.CompletableFuture;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * Answers with the path the request took, e.g. {@code gateway > a[base] > b[gray] > c[base]}: the
 * hop it came from (the gateway names itself in {@code X-Chain-Entry}), this instance, then what b
 * answered. An instance names its lane from {@code sluice.lane} ({@code -Dsluice.lane=gray} or
 * {@code SLUICE_LANE=gray}, the setting the Sluice agent reads), {@code base} without one.
 */
@RestController
class ChainController {
  private final String hop;
  private final BClient b;
  private final AsyncHop asyncHop;

  ChainController(
      @Value("${spring.application.name}[${sluice.lane:base}]") String hop,
      BClient b,
      AsyncHop asyncHop) {
    this.hop = hop;
    this.b = b;
    this.asyncHop = asyncHop;
  }

  /** a → b over OpenFeign; b goes on to c over a RestClient. */
  @GetMapping("/a/httpTest")
  String httpTest(@RequestHeader(name = "X-Chain-Entry", required = false) String entry) {
    return path(entry, b.httpTest());
  }

  /** The same path, but a hands the call to an {@code @Async} method that uses a WebClient. */
  @GetMapping("/a/asyncTest")
  CompletableFuture<String> asyncTest(
      @RequestHeader(name = "X-Chain-Entry", required = false) String entry) {
    return asyncHop.callB().thenApply(rest -> path(entry, rest));
  }

  private String path(String entry, String rest) {
    String fromHere = hop + " > " + rest;
    return entry == null ? fromHere : entry + " > " + fromHere;
  }
}
