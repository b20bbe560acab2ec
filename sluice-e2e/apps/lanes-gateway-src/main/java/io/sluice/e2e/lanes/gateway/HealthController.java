package io.sluice.e2e.lanes.gateway;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** Answers once the gateway serves, whatever its routes' targets are doing. */
@RestController
class HealthController {
  @GetMapping("/health")
  String health() {
    return "ok";
  }
}
