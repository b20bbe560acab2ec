package io.sluice.server.launcher;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code bin/sluice}: the one command line a user types. Each capability is a subcommand. */
@Command(
    name = "sluice",
    mixinStandardHelpOptions = true,
    versionProvider = SluiceVersion.class,
    description = "Sluice: a Nacos-compatible registry and config center with built-in governance.",
    footer = {
      "",
      "bin/sluice demo [--help]  runs the demo call chain gateway -> a -> b -> c under the agent",
      "                          (sluice-examples), with a 50 % lane and flow rules"
    },
    subcommands = {ServerCommand.class, CommandLine.HelpCommand.class})
public final class SluiceCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    // `sluice` alone: say what it can do rather than fail.
    spec.commandLine().usage(System.out);
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new SluiceCommand()).execute(args));
  }
}
