package io.sluice.bench.load;

import io.sluice.bench.load.lean.LeanConnection;
import io.sluice.bench.load.lean.LeanTransport;
import io.sluice.bench.load.lean.PushHandler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code load startup}: starts a server with a given shell command, and times how long until a
 * client can connect and is served: the gRPC handshake completes ({@code ServerCheckRequest}
 * answered with success, which a server still starting refuses with error 300, then the stream
 * registered). Then it reads the server's RSS and stops it with SIGTERM. Run several times on the
 * same data directory, the first run is a fresh start and the next ones are restarts.
 */
@Command(
    name = "startup",
    mixinStandardHelpOptions = true,
    description = "Times server start to ready (first successful gRPC handshake).")
final class StartupProbe implements Callable<Integer> {
  @Option(
      names = "--command",
      required = true,
      description = "Shell command that starts the server in the foreground (run with bash -c).")
  String command;

  @Option(names = "--server", defaultValue = "127.0.0.1:8848", description = "host:port (HTTP).")
  String server;

  @Option(names = "--runs", defaultValue = "3")
  int runs;

  @Option(names = "--timeout", defaultValue = "180", description = "Seconds to wait for ready.")
  int timeoutSeconds;

  @Option(names = "--log", description = "Server output goes here (default: a temp file).")
  Path logFile;

  @Override
  public Integer call() throws Exception {
    String[] hostPort = server.split(":");
    int grpcPort = Integer.parseInt(hostPort[1]) + 1000;
    Path log = logFile != null ? logFile : Files.createTempFile("sluice-startup", ".log");
    List<Double> seconds = new ArrayList<>();
    try (LeanTransport transport = new LeanTransport(hostPort[0], grpcPort, 1, 1_000)) {
      for (int run = 1; run <= runs; run++) {
        long t0 = System.nanoTime();
        Process process =
            new ProcessBuilder("bash", "-c", "exec " + command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        try {
          double ready = awaitReady(transport, process, t0);
          if (ready < 0) {
            System.err.printf("startup: run %d: not ready; output in %s%n", run, log);
            return 1;
          }
          Thread.sleep(500); // let the start-up garbage settle before reading RSS
          ProcessProbe.Sample sample = new ProcessProbe(process.pid()).sample();
          seconds.add(ready);
          System.out.printf(
              Locale.ROOT,
              "{\"scenario\":\"startup\",\"run\":%d,\"readySec\":%.3f,\"serverRssMb\":%.1f,"
                  + "\"serverThreads\":%d,\"pid\":%d}%n",
              run,
              ready,
              sample.rssBytes() / 1048576.0,
              sample.threads(),
              process.pid());
        } finally {
          stop(process);
        }
      }
    }
    Collections.sort(seconds);
    System.out.printf(
        Locale.ROOT,
        "startup: median %.3f s to ready over %d runs (min %.3f, max %.3f); server output in %s%n",
        seconds.get(seconds.size() / 2),
        seconds.size(),
        seconds.get(0),
        seconds.get(seconds.size() - 1),
        log);
    return 0;
  }

  private double awaitReady(LeanTransport transport, Process process, long t0)
      throws InterruptedException {
    long deadline = t0 + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    while (System.nanoTime() < deadline && process.isAlive()) {
      try {
        LeanConnection connection =
            transport.connect(LeanTransport.configLabels(), PushHandler.IGNORE).join();
        double ready = (System.nanoTime() - t0) / 1e9;
        connection.close();
        return ready;
      } catch (RuntimeException notYet) {
        Thread.sleep(10);
      }
    }
    return -1;
  }

  private static void stop(Process process) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
