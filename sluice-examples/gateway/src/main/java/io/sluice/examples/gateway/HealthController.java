package io.sluice.examples.gateway;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /health} answers {@code ok} once the gateway serves, whatever its routes' targets are
 * doing: a WebFlux endpoint of the gateway itself, beside its proxied routes.
 */
@RestController
class HealthController {
  @GetMapping("/health")
  String health() {
    return "ok";
  }
}
