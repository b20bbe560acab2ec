package io.sluice.examples.a;

import org.springframework.cloud.openfeign.FeignClient;
import org.springframework.web.bind.annotation.GetMapping;

/** Service b through OpenFeign, an instance picked by the load balancer for each call. */
@FeignClient("b")
interface BClient {
  @GetMapping("/b/httpTest")
  String httpTest();
}
