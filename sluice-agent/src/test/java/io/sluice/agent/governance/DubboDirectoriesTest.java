package io.sluice.agent.governance;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.agent.bootstrap.SluiceContext;
import io.sluice.agent.logging.AgentLog;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.rpc.Invocation;
import org.apache.dubbo.rpc.Invoker;
import org.apache.dubbo.rpc.Result;
import org.apache.dubbo.rpc.cluster.directory.StaticDirectory;
import org.junit.jupiter.api.Test;

/**
 * A Dubbo consumer's provider list read from its directory as the one object Dubbo keeps, not the
 * copy its accessors hand out: the lane router's precomputed split is keyed by that identity.
 */
class DubboDirectoriesTest {
  /** Stands in for Dubbo's {@code AbstractDirectory}: a private list its accessor copies. */
  static class CopyingDirectory {
    private volatile List<String> invokers = List.of("p1", "p2");

    public List<String> getAllInvokers() {
      return new ArrayList<>(invokers);
    }

    void replace(List<String> next) {
      invokers = next;
    }
  }

  /** A concrete directory, as Dubbo's are subclasses of the abstract one. */
  static final class RegistryDirectory extends CopyingDirectory {}

  @Test
  void readsTheDirectorysOwnListTheSameObjectUntilItIsReplaced() throws Throwable {
    MethodHandle providers =
        DubboDirectories.invokersField(RegistryDirectory.class, CopyingDirectory.class.getName());
    RegistryDirectory directory = new RegistryDirectory();

    Object first = (Object) providers.invokeExact((Object) directory);
    assertThat(first).isEqualTo(List.of("p1", "p2"));
    assertThat((Object) providers.invokeExact((Object) directory)).isSameAs(first);
    assertThat(directory.getAllInvokers()).isNotSameAs(directory.getAllInvokers());

    List<String> next = List.of("p3");
    directory.replace(next);
    assertThat((Object) providers.invokeExact((Object) directory)).isSameAs(next);
  }

  /** A provider as a consumer's directory holds it. */
  static final class Provider implements Invoker<Runnable> {
    private final URL url;

    Provider(String address, String parameters) {
      url =
          URL.valueOf(
              "dubbo://"
                  + address
                  + "/java.lang.Runnable?interface=java.lang.Runnable"
                  + parameters);
    }

    Provider(String address) {
      this(address, "");
    }

    @Override
    public Class<Runnable> getInterface() {
      return Runnable.class;
    }

    @Override
    public Result invoke(Invocation invocation) {
      throw new UnsupportedOperationException();
    }

    @Override
    public URL getUrl() {
      return url;
    }

    @Override
    public boolean isAvailable() {
      return true;
    }

    @Override
    public void destroy() {}
  }

  @Test
  void readsARealDubboDirectorysProvidersAsTheOneListItKeeps() {
    List<Invoker<Runnable>> providers =
        List.of(new Provider("10.0.0.2:20880"), new Provider("10.0.0.3:20880"));
    StaticDirectory<Runnable> directory = new StaticDirectory<>(providers);

    List<?> read = DubboDirectories.providersOf(directory);

    assertThat(elements(read)).containsExactlyElementsOf(providers);
    assertThat(DubboDirectories.providersOf(directory)).isSameAs(read);
    assertThat(DubboDirectories.copies(directory)).isFalse();
    // What Dubbo's own accessor does, and why it is not used.
    assertThat(directory.getAllInvokers()).isNotSameAs(directory.getAllInvokers());
  }

  @Test
  void splitsARealDirectorysProvidersByLaneOncePerProviderList() {
    Provider base = new Provider("10.0.0.2:20880");
    Provider gray = new Provider("10.0.0.3:20880", "&sluice.lane=gray");
    StaticDirectory<Runnable> directory = new StaticDirectory<>(List.of(base, gray));
    // What Dubbo's routers hand the cluster: a list of its own on every call.
    List<Provider> routed = List.of(base, gray);
    LaneGovernance lanes =
        new LaneGovernance(
            null,
            AgentLog.toStream(
                new PrintStream(OutputStream.nullOutputStream()), AgentLog.Level.WARN));
    try {
      SluiceContext.restore(SluiceContext.of(null, "gray"));
      List<?> first = lanes.laneInvokers(List.copyOf(routed), directory);
      assertThat(elements(first)).containsExactly(gray);
      // The same precomputed list, not a new split of a new copy.
      assertThat(lanes.laneInvokers(List.copyOf(routed), directory)).isSameAs(first);

      SluiceContext.restore(null);
      assertThat(elements(lanes.laneInvokers(List.copyOf(routed), directory)))
          .containsExactly(base);
    } finally {
      SluiceContext.restore(null);
    }
  }

  @Test
  void findsNoFieldOutsideTheDirectoryHierarchy() {
    assertThat(DubboDirectories.invokersField(String.class, CopyingDirectory.class.getName()))
        .isNull();
    assertThat(DubboDirectories.providersOf(new Object())).isNull();
    assertThat(DubboDirectories.providersOf(null)).isNull();
    assertThat(DubboDirectories.copies(new Object())).isFalse();
  }

  private static List<Object> elements(List<?> list) {
    return new ArrayList<>(list);
  }
}
