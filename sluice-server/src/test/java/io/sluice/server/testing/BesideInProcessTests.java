package io.sluice.server.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Marks an integration test whose servers are processes it loads for minutes: a cluster, or one
 * server stormed with writes and killed over and over (DurabilityIT, ConfigDurabilityIT). Failsafe
 * runs such a class on a second thread, beside the in-process ITs, which run one after another on
 * the first (sluice-server's POM turns JUnit's parallel execution on for its ITs only, classes
 * same-thread by default).
 *
 * <p>An IT whose one server process mostly waits (the launcher, the admin bootstrap, the handshake
 * flood) is not marked and runs in line with the in-process ITs: marked, it lengthened the second
 * thread, which already carried more than the first, while the first sat idle at the end.
 *
 * <p>At most one marked class runs at a time ({@link #LOCK}): two clusters electing leaders with
 * short timeouts on two cores would trip each other. A marked class must not measure this JVM (its
 * heap, threads, descriptors): an in-process IT runs beside it. An IT that measures this JVM is
 * {@code @Isolated} instead, and runs alone at the end.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(BesideInProcessTests.LOCK)
public @interface BesideInProcessTests {
  /** The lock the marked classes share. */
  String LOCK = "io.sluice.server.testing.BesideInProcessTests";
}
