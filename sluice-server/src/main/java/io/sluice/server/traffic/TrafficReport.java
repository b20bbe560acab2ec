package io.sluice.server.traffic;

import java.util.List;

/**
 * What one agent sends in one report: who it is, the resources it has seen, and the statistics of
 * the seconds it has not reported yet (usually one; more after the server was unreachable).
 *
 * @param app the application name
 * @param instance the instance's id within the application (unique per process)
 * @param lane the instance's lane, or null for a base instance
 * @param seen every resource the agent has resolved, name to kind ("Spring MVC route", ...)
 * @param seconds per second (epoch millis at its start), its resources' statistics
 * @param dropped seconds the agent dropped since its last report (its buffer was full)
 * @param sentAtMillis the agent's clock when it sent the report: seconds are placed relative to it,
 *     so an agent whose clock is off still lands on the server's timeline
 */
public record TrafficReport(
    String app,
    String instance,
    String lane,
    List<SeenResource> seen,
    List<Second> seconds,
    long dropped,
    long sentAtMillis) {

  /** A resource and the kind of call site it was seen at. */
  public record SeenResource(String name, String kind) {}

  /** One second of an instance's traffic. */
  public record Second(long startMillis, List<ResourceSecond> resources) {}
}
