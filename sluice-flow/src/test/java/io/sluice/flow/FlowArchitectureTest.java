package io.sluice.flow;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The module arrow of sluice-flow (docs/architecture.md): it depends on nothing at runtime but the
 * JDK, because the agent shades it into every governed application, where any library it pulled in
 * could clash with the application's own.
 */
@AnalyzeClasses(packages = "io.sluice.flow", importOptions = ImportOption.DoNotIncludeTests.class)
class FlowArchitectureTest {
  @ArchTest
  static final ArchRule dependsOnNothingButTheJdk =
      classes()
          .that()
          .resideInAPackage("io.sluice.flow..")
          .should()
          .onlyDependOnClassesThat()
          // The JDK: java.* and its supported com.sun.management extension (CPU load).
          .resideInAnyPackage("io.sluice.flow..", "java..", "com.sun.management..")
          .because("sluice-flow has no runtime dependency: the agent shades it into applications");
}
