package io.sluice.server.launcher;

import picocli.CommandLine;

/** Reads the version Maven wrote into the jar's manifest; "development" when run from classes. */
final class SluiceVersion implements CommandLine.IVersionProvider {
  @Override
  public String[] getVersion() {
    String version = SluiceVersion.class.getPackage().getImplementationVersion();
    return new String[] {"sluice " + (version == null ? "development" : version)};
  }
}
