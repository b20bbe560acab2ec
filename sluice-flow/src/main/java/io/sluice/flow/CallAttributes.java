package io.sluice.flow;

/**
 * Reads the attribute a hot-parameter rule names ({@link ParamSource}) from a call, for the rules
 * that take their value from the call rather than from an argument. One instance serves every call
 * of its kind (an HTTP request type, say); the call itself is passed alongside, so asking costs no
 * allocation of the caller's.
 */
@FunctionalInterface
public interface CallAttributes {

  /** Reads nothing: every attribute is absent. */
  CallAttributes NONE = (call, source) -> null;

  /**
   * @param call the call as the caller handed it to {@link Resource#tryAcquire(String, String,
   *     Object[], CallAttributes, Object)}
   * @return the attribute's value, or null when the call does not have it (a null value is not
   *     limited)
   */
  Object read(Object call, ParamSource source);
}
