package io.sluice.examples.api;

/** Service c over Dubbo: the end of the path. */
public interface CService {
  /** This instance, {@code c[lane]}. */
  String dubboTest();
}
