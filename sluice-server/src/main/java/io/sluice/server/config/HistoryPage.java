package io.sluice.server.config;

import java.util.List;

/** One page of history, newest first, in the shape Nacos's history API pages results. */
public record HistoryPage(
    int totalCount, int pageNumber, int pagesAvailable, List<ConfigHistoryEntry> pageItems) {}
