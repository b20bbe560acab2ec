package io.sluice.server.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class SluiceCommandTest {
  @TempDir Path dataDir;

  @Test
  void helpListsTheServerSubcommand() {
    Run run = execute("--help");

    assertThat(run.exitCode).isZero();
    assertThat(run.out).contains("Usage: sluice").contains("server");
  }

  @Test
  void serverHelpDescribesEveryOption() {
    Run run = execute("server", "--help");

    assertThat(run.exitCode).isZero();
    assertThat(run.out)
        .contains("--port=PORT")
        .contains("PORT + 1000")
        .contains("--bind=ADDRESS")
        .contains("--data-dir=DIR")
        .contains("default: 8848")
        .contains("default: 127.0.0.1");
  }

  @Test
  void serverHelpDescribesTheSecurityOptions() {
    Run run = execute("server", "--help");

    assertThat(run.out)
        .contains("--auth")
        .contains("--insecure-no-auth")
        .contains("SLUICE_ADMIN_PASSWORD")
        .contains("--max-config-bytes")
        .contains("--max-buffered-request-bytes")
        .contains("--max-http-connections")
        .contains("--max-grpc-connections")
        .contains("--max-grpc-handshakes")
        .contains("--max-grpc-handshakes-per-address")
        .contains("--grpc-handshake-timeout-ms")
        .contains("--min-free-disk-bytes")
        .contains("--health-check-cidrs")
        .contains("--health-check-ports")
        .contains("--health-check-allow-query");
  }

  @Test
  void refusesContradictoryAuthFlagsAndMalformedHealthCheckTargets() {
    Run both = execute("server", "--auth", "--insecure-no-auth");
    Run cidr = execute("server", "--health-check-cidrs", "10.0.0.0/40");

    assertThat(both.exitCode).isEqualTo(2);
    assertThat(cidr.exitCode).isEqualTo(2);
  }

  @Test
  void refusesLogLimitsOutsideTheirRangeBeforeStarting() {
    // Refused before anything starts; a server that started would not return, hence the bound.
    assertTimeoutPreemptively(
        Duration.ofSeconds(30),
        () -> {
          assertThat(refused("--log-max-files", "101"))
              .contains("--log-max-files must be 0 to 100, was 101");
          assertThat(refused("--log-max-files", "-1"))
              .contains("--log-max-files must be 0 to 100, was -1");
          assertThat(refused("--log-max-file-bytes", "4095"))
              .contains("--log-max-file-bytes must be at least 4096, was 4095");
        });
    assertThat(execute("server", "--help").out)
        .contains("--log-max-file-bytes")
        .contains("--log-max-files");
  }

  @Test
  void refusesAnUnknownGrpcTransportNamingTheChoicesBeforeStarting() {
    assertTimeoutPreemptively(
        Duration.ofSeconds(30),
        () ->
            assertThat(refused("--grpc-transport", "okhttp"))
                .contains("unknown gRPC transport 'okhttp'; one of: grpc-java, netty-h2"));
    assertThat(execute("server", "--help").out.replaceAll("\\s+", " "))
        .contains("--grpc-transport=NAME")
        .contains("netty-h2 (default:")
        .contains("or grpc-java");
  }

  @Test
  void refusesAnUnknownIoTransportNamingTheChoicesBeforeStarting() {
    assertTimeoutPreemptively(
        Duration.ofSeconds(30),
        () ->
            assertThat(refused("--io", "kqueue"))
                .contains("unknown I/O transport 'kqueue' for --io; one of: auto, epoll, nio"));
    assertThat(execute("server", "--help").out).contains("--io=NAME");
  }

  @Test
  void rejectsAnUnknownOptionWithAUsageMessage() {
    Run run = execute("server", "--prot", "1");

    assertThat(run.exitCode).isEqualTo(2);
    assertThat(run.err).contains("Unknown option").contains("--prot");
  }

  @Test
  void rejectsANonNumericPort() {
    Run run = execute("server", "--port", "eighty");

    assertThat(run.exitCode).isEqualTo(2);
    assertThat(run.err).contains("--port");
  }

  /** Runs the server command with one option; returns what it printed on standard error. */
  private String refused(String option, String value) {
    // The command reports refused options on System.err, not through picocli's writer.
    PrintStream console = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      Run run = execute("server", "--port", "0", "--data-dir", dataDir.toString(), option, value);
      assertThat(run.exitCode).isEqualTo(2);
    } finally {
      System.setErr(console);
    }
    return err.toString(StandardCharsets.UTF_8);
  }

  private static Run execute(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = new CommandLine(new SluiceCommand());
    commandLine.setOut(new PrintWriter(out));
    commandLine.setErr(new PrintWriter(err));
    int exitCode = commandLine.execute(args);
    return new Run(exitCode, out.toString(), err.toString());
  }

  private record Run(int exitCode, String out, String err) {}
}
