package io.sluice.server.replication;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.ratis.metrics.LongCounter;
import org.apache.ratis.metrics.MetricRegistries;
import org.apache.ratis.metrics.MetricRegistryInfo;
import org.apache.ratis.metrics.RatisMetricRegistry;
import org.apache.ratis.metrics.Timekeeper;
import org.apache.ratis.util.TimeDuration;

/**
 * The metrics registry Ratis finds through {@code ServiceLoader}: one that records nothing.
 *
 * <p>Ratis refuses to start without a registry, and its default one brings Dropwizard metrics, JMX
 * beans and several timers per log entry. Nothing of Sluice reads them; our own figures come from
 * {@link RatisReplicator#stats()}. Recording nothing saves start-up class loading and a little CPU
 * per write.
 */
public final class UnrecordedRatisMetrics extends MetricRegistries {
  private static final Timekeeper.Context STOPPED = () -> 0L;
  private static final Timekeeper TIMER = () -> STOPPED;

  @Override
  public void clear() {}

  @Override
  public RatisMetricRegistry create(MetricRegistryInfo info) {
    return new Registry(info);
  }

  @Override
  public boolean remove(MetricRegistryInfo info) {
    return true;
  }

  @Override
  public Optional<RatisMetricRegistry> get(MetricRegistryInfo info) {
    return Optional.empty();
  }

  @Override
  public Set<MetricRegistryInfo> getMetricRegistryInfos() {
    return Set.of();
  }

  @Override
  public Collection<RatisMetricRegistry> getMetricRegistries() {
    return List.of();
  }

  @Override
  public void addReporterRegistration(
      Consumer<RatisMetricRegistry> reporterRegistration,
      Consumer<RatisMetricRegistry> stopReporter) {}

  @Override
  public void enableJmxReporter() {}

  @Override
  public void enableConsoleReporter(TimeDuration consoleReportRate) {}

  private record Registry(MetricRegistryInfo info) implements RatisMetricRegistry {
    @Override
    public Timekeeper timer(String name) {
      return TIMER;
    }

    @Override
    public LongCounter counter(String name) {
      return new Counter();
    }

    @Override
    public boolean remove(String name) {
      return true;
    }

    @Override
    public <T> void gauge(String name, Supplier<Supplier<T>> gaugeSupplier) {}

    @Override
    public MetricRegistryInfo getMetricRegistryInfo() {
      return info;
    }
  }

  /** Counts, because a caller may read a counter back; costs one field. */
  private static final class Counter implements LongCounter {
    private long count;

    @Override
    public void inc(long n) {
      count += n;
    }

    @Override
    public void dec(long n) {
      count -= n;
    }

    @Override
    public long getCount() {
      return count;
    }
  }
}
