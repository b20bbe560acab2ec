package io.sluice.e2e.lanes;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /hop?next=lanes-b:feign,lanes-c} answers {@code lanes-a[base] > lanes-b[gray] >
 * lanes-c[base]}: this instance's name and lane, then what the next hop answered, called with the
 * named client (rest-template when none is named). The lane shown is the instance's own, from the
 * same setting the agent reads, so the answer is the path the request really took.
 */
@RestController
class HopController {
  private final String name;
  private final String lane;
  private final Hops hops;

  HopController(@Value("${spring.application.name}") String name, Hops hops) {
    this.name = name;
    String configured = System.getProperty("sluice.lane");
    this.lane = configured == null || configured.isBlank() ? "base" : configured;
    this.hops = hops;
  }

  @GetMapping("/hop")
  String hop(@RequestParam(name = "next", defaultValue = "") String next) throws Exception {
    String here = name + "[" + lane + "]";
    if (next.isEmpty()) {
      return here;
    }
    String[] split = next.split(",", 2);
    String[] target = split[0].split(":", 2);
    String client = target.length > 1 ? target[1] : "rest-template";
    String rest = split.length > 1 ? split[1] : "";
    return here + " > " + hops.call(client, target[0], rest);
  }

  @GetMapping("/health")
  String health() {
    return "ok";
  }
}
