package io.sluice.server.config;

import java.util.List;

/** One page of a listing, in the shape Nacos pages results ({@code pageNumber} counts from 1). */
public record Page<T>(int totalCount, int pageNumber, int pagesAvailable, List<T> pageItems) {
  public Page {
    pageItems = List.copyOf(pageItems);
  }
}
