package io.sluice.e2e.lanes;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.springframework.cloud.openfeign.FeignClientBuilder;
import org.springframework.context.ApplicationContext;
import org.springframework.scheduling.annotation.Async;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;

/** Calls the next hop's {@code /hop} by service name through one load-balanced client. */
@Component
class Hops {
  private final RestTemplate restTemplate;
  private final RestClient restClient;
  private final WebClient webClient;
  private final ApplicationContext context;
  private final AsyncHop asyncHop;

  Hops(
      RestTemplate restTemplate,
      RestClient.Builder restClient,
      WebClient.Builder webClient,
      ApplicationContext context,
      AsyncHop asyncHop) {
    this.restTemplate = restTemplate;
    this.restClient = restClient.build();
    this.webClient = webClient.build();
    this.context = context;
    this.asyncHop = asyncHop;
  }

  String call(String client, String service, String next) throws Exception {
    String uri = "http://" + service + "/hop?next={next}";
    switch (client) {
      case "rest-template":
        return restTemplate.getForObject(uri, String.class, next);
      case "rest-client":
        return restClient.get().uri(uri, next).retrieve().body(String.class);
      case "webclient":
        return webClient.get().uri(uri, next).retrieve().bodyToMono(String.class).block();
      case "feign":
        return new FeignClientBuilder(context)
            .forType(HopClient.class, service)
            .build()
            .hop(next);
      case "async":
        // Spring's @Async executor runs the call on another thread.
        return asyncHop.call(uri, next).get(30, TimeUnit.SECONDS);
      default:
        throw new IllegalArgumentException("unknown client " + client);
    }
  }

  /** The next hop as an OpenFeign client. */
  interface HopClient {
    @GetMapping("/hop")
    String hop(@RequestParam("next") String next);
  }

  @Component
  static class AsyncHop {
    private final RestTemplate restTemplate;

    AsyncHop(RestTemplate restTemplate) {
      this.restTemplate = restTemplate;
    }

    @Async
    public CompletableFuture<String> call(String uri, String next) {
      return CompletableFuture.completedFuture(
          restTemplate.getForObject(uri, String.class, next));
    }
  }
}
