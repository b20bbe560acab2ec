package io.sluice.server.feature;

/**
 * An outcome by which a state's apply refused a command as a whole: it could not read it (the
 * server's fault), or the command broke a rule only apply can check. {@link ReplicatedWrites} turns
 * it into the feature's failure with this fault, so a refusal reaches every protocol by the one
 * translation of faults and no adapter can mistake it for a success.
 */
public interface Refusal {
  Fault fault();

  String reason();
}
