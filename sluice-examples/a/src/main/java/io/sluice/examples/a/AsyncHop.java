package io.sluice.examples.a;

import java.util.concurrent.CompletableFuture;
import org.springframework.scheduling.annotation.Async;
import org.springframework.stereotype.Service;
import org.springframework.web.reactive.function.client.WebClient;

/** Calls b from one of Spring's task-executor threads, through the load-balanced WebClient. */
@Service
class AsyncHop {
  private final WebClient b;

  AsyncHop(WebClient.Builder loadBalanced) {
    this.b = loadBalanced.baseUrl("http://b").build();
  }

  @Async
  public CompletableFuture<String> callB() {
    String rest = b.get().uri("/b/httpTest").retrieve().bodyToMono(String.class).block();
    return CompletableFuture.completedFuture(rest);
  }
}
