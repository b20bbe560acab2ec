package io.sluice.e2e.dubbo31;

/** The service the Dubbo 3.1 application exports and calls. */
public interface HelloService {
  String hello(String name);
}
