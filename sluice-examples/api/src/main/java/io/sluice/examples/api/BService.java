package io.sluice.examples.api;

/** Service b over Dubbo: each method answers with {@code b[lane]} and the path of its next hop. */
public interface BService {
  /** b → c over Dubbo: {@code b[base] > c[base]}. */
  String dubboTest();

  /** b → c over HTTP (the load-balanced RestClient of {@code /b/httpTest}). */
  String mixedTest();
}
