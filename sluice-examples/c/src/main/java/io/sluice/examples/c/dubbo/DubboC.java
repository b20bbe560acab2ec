package io.sluice.examples.c.dubbo;

import io.sluice.examples.api.CService;
import org.apache.dubbo.config.annotation.DubboService;
import org.springframework.beans.factory.annotation.Value;

/** c as a Dubbo provider: answers with this instance, {@code c[lane]}. */
@DubboService
public class DubboC implements CService {
  private final String hop;

  public DubboC(@Value("${spring.application.name}[${sluice.lane:base}]") String hop) {
    this.hop = hop;
  }

  @Override
  public String dubboTest() {
    return hop;
  }
}
