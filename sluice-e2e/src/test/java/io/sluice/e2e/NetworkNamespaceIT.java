package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The namespace the Dubbo tests run their applications in: what is inside, that nothing is left
 * behind, and that what a killed run left is cleared by the next one. Needs root, as they do.
 */
class NetworkNamespaceIT {
  @Test
  void hasOnlyItsLoopbackAndItsEndOfThePairWhoseAddressThisSideReaches() throws Exception {
    try (NetworkNamespace namespace = NetworkNamespace.create()) {
      List<String> inside = new ArrayList<>(namespace.commandPrefix());
      inside.addAll(List.of("ip", "-4", "-o", "addr"));
      String addresses = run(inside);
      assertThat(addresses.lines())
          .hasSize(2)
          .anySatisfy(line -> assertThat(line).contains(" lo ").contains("inet 127.0.0.1/8"))
          .anySatisfy(
              line -> assertThat(line).contains(" eth0 ").contains(namespace.address() + "/30"));
      // This side routes the namespace's address through the pair, not anywhere else.
      assertThat(run(List.of("ip", "route", "get", namespace.address()))).contains(" dev sl");
    }
  }

  @Test
  void leavesNoNamespaceAndNoLinkBehindWhenClosed() throws Exception {
    NetworkNamespace namespace = NetworkNamespace.create();
    String address = namespace.address();
    assertThat(run(List.of("ip", "netns", "list"))).contains(namespace.name());
    assertThat(run(List.of("ip", "route", "get", address))).contains(" dev sl");
    namespace.close();
    assertThat(run(List.of("ip", "netns", "list"))).doesNotContain(namespace.name());
    // The pair is gone with its route: the address is routed as any other outside address.
    assertThat(run(List.of("ip", "route", "get", address))).doesNotContain(" dev sl");
  }

  @Test
  void deletesTheNamespaceOfARunThatEndedWithWhatStillRunsInIt() throws Exception {
    Process ended = new ProcessBuilder("true").start();
    ended.waitFor();
    String stale = "sluice-e2e-" + ended.pid() + "-0";
    run(List.of("ip", "netns", "add", stale));
    Process left = new ProcessBuilder("ip", "netns", "exec", stale, "sleep", "600").start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (run(List.of("ip", "netns", "pids", stale)).isBlank()) {
        assertThat(System.nanoTime()).as("sleep entered the namespace").isLessThan(deadline);
        Thread.sleep(50);
      }
      try (NetworkNamespace namespace = NetworkNamespace.create()) {
        assertThat(run(List.of("ip", "netns", "list")))
            .doesNotContain(stale)
            .contains(namespace.name());
        assertThat(left.waitFor(10, TimeUnit.SECONDS)).as("the process left inside ended").isTrue();
      }
    } finally {
      left.destroyForcibly();
      new ProcessBuilder("ip", "netns", "delete", stale).start().waitFor();
    }
  }

  private static String run(List<String> command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as("%s: %s", command, output).isZero();
    return output;
  }
}
