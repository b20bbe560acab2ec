package io.sluice.e2e.dubbo;

/** The Dubbo service the e2e provider exports and the consumer calls. */
public interface HelloService {
  /** Answers at once, naming the provider that served the call. */
  String hello(String name);

  /** Answers after {@code millis}: slow calls for circuit breakers. */
  String slow(int millis);

  /** The serving provider, its lane, and what the call carried: {@code port|lane|attachments}. */
  String whoami();
}
