package io.sluice.server.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class SluiceCommandTest {
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
