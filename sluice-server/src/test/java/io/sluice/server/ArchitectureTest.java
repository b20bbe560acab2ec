package io.sluice.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The arrows of docs/architecture.md ("How sluice-server is put together"), checked on the bytecode
 * so that a change that breaks one fails the build instead of eroding the layering.
 */
@AnalyzeClasses(packages = "io.sluice.server", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  private static final String ROOT = "io.sluice.server";
  private static final String LAUNCHER = "io.sluice.server.launcher..";
  private static final String CLOCK = "io.sluice.server.clock..";
  private static final String METRICS = "io.sluice.server.metrics..";
  private static final String REPLICATION = "io.sluice.server.replication..";
  private static final String PROTOCOL = "io.sluice.server.protocol..";
  private static final String KERNEL = "io.sluice.server.feature..";
  private static final String[] FEATURES = {
    "io.sluice.server.config",
    "io.sluice.server.naming",
    "io.sluice.server.naming.health",
    "io.sluice.server.namespace",
    "io.sluice.server.auth",
    "io.sluice.server.traffic"
  };
  private static final String[] ADAPTERS = {
    "io.sluice.server.config.grpc..",
    "io.sluice.server.config.http..",
    "io.sluice.server.naming.grpc..",
    "io.sluice.server.naming.http..",
    "io.sluice.server.namespace.http..",
    "io.sluice.server.auth.http..",
    "io.sluice.server.auth.grpc..",
    "io.sluice.server.connection..",
    "io.sluice.server.cluster..",
    "io.sluice.server.traffic.http..",
    "io.sluice.server.console.."
  };

  /**
   * launcher → root → adapters → features and protocols → the feature kernel (faults, the one write
   * path) → replication; the clock and the meters are below all. Nothing reaches up, features never
   * see a protocol, and only the features and the kernel see replication: adapters and protocols
   * see neither stores nor replication.
   */
  @ArchTest
  static final ArchRule layers =
      layeredArchitecture()
          .consideringOnlyDependenciesInAnyPackage(ROOT + "..")
          .layer("launcher")
          .definedBy(LAUNCHER)
          .layer("root")
          .definedBy(ROOT)
          .layer("adapters")
          .definedBy(ADAPTERS)
          .layer("features")
          .definedBy(FEATURES)
          .layer("protocols")
          .definedBy(PROTOCOL)
          .layer("kernel")
          .definedBy(KERNEL)
          .layer("replication")
          .definedBy(REPLICATION)
          .layer("clock")
          .definedBy(CLOCK)
          .layer("metrics")
          .definedBy(METRICS)
          .whereLayer("launcher")
          .mayNotBeAccessedByAnyLayer()
          .whereLayer("root")
          .mayOnlyBeAccessedByLayers("launcher")
          .whereLayer("adapters")
          .mayOnlyBeAccessedByLayers("root")
          .whereLayer("features")
          .mayOnlyBeAccessedByLayers("root", "adapters")
          .whereLayer("protocols")
          .mayOnlyBeAccessedByLayers("root", "adapters")
          .whereLayer("kernel")
          .mayOnlyBeAccessedByLayers("root", "adapters", "features", "protocols")
          .whereLayer("replication")
          .mayOnlyBeAccessedByLayers("root", "features", "kernel");

  /** The two protocols are independent: each translates the features' answers on its own. */
  @ArchTest
  static final ArchRule grpcDoesNotUseHttp =
      noClasses()
          .that()
          .resideInAPackage("io.sluice.server.protocol.grpc..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.sluice.server.protocol.http..");

  @ArchTest
  static final ArchRule httpDoesNotUseGrpc =
      noClasses()
          .that()
          .resideInAPackage("io.sluice.server.protocol.http..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.sluice.server.protocol.grpc..");

  /** Replication knows nothing of what it replicates. */
  @ArchTest
  static final ArchRule replicationStandsAlone =
      noClasses()
          .that()
          .resideInAPackage(REPLICATION)
          .should()
          .dependOnClassesThat()
          .resideOutsideOfPackages(
              REPLICATION, "java..", "javax..", "org.apache.ratis..", "org.slf4j..");

  /** Meters are leaves anyone may record into; they know nothing of what they measure. */
  @ArchTest
  static final ArchRule metricsStandAlone =
      noClasses()
          .that()
          .resideInAPackage(METRICS)
          .should()
          .dependOnClassesThat()
          .resideOutsideOfPackages(METRICS, "java..", "com.sun.management..");

  /** The logging backend (the launcher opens its file) knows the JDK and SLF4J only. */
  @ArchTest
  static final ArchRule loggingStandsAlone =
      noClasses()
          .that()
          .resideInAPackage("io.sluice.server.logging..")
          .should()
          .dependOnClassesThat()
          .resideOutsideOfPackages("io.sluice.server.logging..", "java..", "org.slf4j..");

  @ArchTest
  static final ArchRule clockStandsAlone =
      noClasses()
          .that()
          .resideInAPackage(CLOCK)
          .should()
          .dependOnClassesThat()
          .resideOutsideOfPackages(CLOCK, "java..");

  /** Features are modules: none reaches into another. */
  @ArchTest
  static final ArchRule featuresAreIndependent =
      slices()
          .matching("io.sluice.server.(config|naming|namespace|auth|traffic)..")
          .should()
          .notDependOnEachOther();

  @ArchTest
  static final ArchRule noCycles =
      slices().matching("io.sluice.server.(*)..").should().beFreeOfCycles();

  /** The server shares no code with the agent: they meet only on the wire. */
  @ArchTest
  static final ArchRule noOtherSluiceModule =
      noClasses()
          .that()
          .resideInAPackage(ROOT + "..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("io.sluice.agent..", "io.sluice.bench..");

  /**
   * The flow core's rule parser validates rules the console saves, so a rule the agents would
   * refuse is never stored; nothing else in the server uses the flow core.
   */
  @ArchTest
  static final ArchRule flowCoreOnlyValidatesTheConsolesRules =
      noClasses()
          .that()
          .resideInAPackage(ROOT + "..")
          .and()
          .resideOutsideOfPackage("io.sluice.server.console..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("io.sluice.flow..");
}
