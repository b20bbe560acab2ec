package io.sluice.examples.b.dubbo;

import io.sluice.examples.api.BService;
import io.sluice.examples.api.CService;
import org.apache.dubbo.config.annotation.DubboReference;
import org.apache.dubbo.config.annotation.DubboService;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.client.RestClient;

/**
 * b as a Dubbo provider: answers with this instance and the path c answered, over either protocol.
 */
@DubboService
public class DubboB implements BService {
  private final String hop;
  private final RestClient httpC;

  @DubboReference(check = false, retries = 0, timeout = 5000)
  private CService c;

  public DubboB(
      @Value("${spring.application.name}[${sluice.lane:base}]") String hop,
      RestClient.Builder loadBalanced) {
    this.hop = hop;
    this.httpC = loadBalanced.baseUrl("http://c").build();
  }

  @Override
  public String dubboTest() {
    return hop + " > " + c.dubboTest();
  }

  @Override
  public String mixedTest() {
    return hop + " > " + httpC.get().uri("/c/httpTest").retrieve().body(String.class);
  }
}
