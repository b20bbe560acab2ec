package io.sluice.server.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.server.ServerOptions;
import io.sluice.server.SluiceServer;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FreePortsTest {
  @Test
  void startsAgainOnOtherPortsWhenAPortWasTakenMeanwhile() throws Exception {
    List<Integer> tried = new ArrayList<>();
    try (ServerSocket listening =
        FreePorts.onPort(
            port -> {
              tried.add(port);
              if (tried.size() == 1) {
                // Someone else binds the candidate first.
                try (ServerSocket thief = bind(port)) {
                  return bind(port);
                }
              }
              return bind(port);
            })) {
      assertThat(tried).hasSize(2);
      assertThat(tried.get(1)).isNotEqualTo(tried.get(0));
      assertThat(listening.getLocalPort()).isEqualTo(tried.get(1));
    }
  }

  @Test
  void givesUpAfterABoundedNumberOfAttempts() {
    AtomicInteger attempts = new AtomicInteger();
    assertThatThrownBy(
            () ->
                FreePorts.onPort(
                    port -> {
                      attempts.incrementAndGet();
                      throw new BindException("Address already in use");
                    }))
        .isInstanceOf(BindException.class);
    assertThat(attempts).hasValue(FreePorts.ATTEMPTS);
  }

  @Test
  void failsAtOnceWhenTheStartFailsForAnotherReason() {
    AtomicInteger attempts = new AtomicInteger();
    assertThatThrownBy(
            () ->
                FreePorts.onHttpPort(
                    port -> {
                      attempts.incrementAndGet();
                      throw new IllegalStateException("the store is corrupt");
                    }))
        .hasMessage("the store is corrupt");
    assertThat(attempts).hasValue(1);
  }

  @Test
  void choosesPortsAndTheirCompanionsBelowTheKernelsEphemeralRange() {
    for (int round = 0; round < 100; round++) {
      int[] ports = FreePorts.candidates(4, 1000);
      for (int i = 0; i < ports.length; i++) {
        assertThat(ports[i] - 1000).isGreaterThanOrEqualTo(FreePorts.LOWEST);
        assertThat(ports[i] + 1000)
            .isLessThanOrEqualTo(FreePorts.HIGHEST)
            .isLessThan(FreePorts.ephemeralRangeStart());
        for (int j = 0; j < i; j++) {
          assertThat(Math.abs(ports[i] - ports[j])).as("apart").isGreaterThan(2000);
        }
      }
    }
  }

  @Test
  void recognisesTheServersBindFailuresAsAPortTaken(@TempDir Path dataDir) throws Exception {
    int[] ports = FreePorts.candidates(2, 1000);
    try (ServerSocket thief = bind(ports[0])) {
      assertThat(failureOfStart(ports[0], dataDir.resolve("http")))
          .matches(FreePorts::saysAPortIsTaken, "says a port is taken");
    }
    try (ServerSocket thief = bind(ports[1] + 1000)) {
      assertThat(failureOfStart(ports[1], dataDir.resolve("grpc")))
          .matches(FreePorts::saysAPortIsTaken, "says a port is taken");
    }
  }

  @Test
  void startsAServerInThisJvmAgainWhenItsGrpcPortWasTaken(@TempDir Path dataDir) throws Exception {
    List<ServerSocket> thieves = new ArrayList<>();
    AtomicInteger attempts = new AtomicInteger();
    try (SluiceServer server =
        FreePorts.onHttpPort(
            port -> {
              if (attempts.incrementAndGet() == 1) {
                thieves.add(bind(port + 1000));
              }
              return SluiceServer.start(
                  ServerOptions.builder().httpPort(port).dataDir(dataDir).build());
            })) {
      assertThat(attempts).hasValue(2);
      assertThat(server.awaitReady(30, TimeUnit.SECONDS)).isTrue();
      assertThat(server.grpcPort()).isEqualTo(server.httpPort() + 1000);
    } finally {
      for (ServerSocket thief : thieves) {
        thief.close();
      }
    }
  }

  private static Throwable failureOfStart(int port, Path dataDir) {
    try (SluiceServer server =
        SluiceServer.start(ServerOptions.builder().httpPort(port).dataDir(dataDir).build())) {
      throw new AssertionError("started on " + port + " although a port was taken");
    } catch (RuntimeException expected) {
      return expected;
    }
  }

  private static ServerSocket bind(int port) throws java.io.IOException {
    return new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
  }
}
