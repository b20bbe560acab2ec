package io.sluice.server.naming;

import java.util.List;

/** One page of service names and how many there are in all. */
public record ServicePage(int count, List<String> names) {}
