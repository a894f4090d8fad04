package io.stunwatch.launcher.rules;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.stunwatch.launcher.AddedCommand;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The map of docs/architecture.md, as rules over the compiled classes of every module. The processor's packages
 * depend downwards only: {@code io.stunwatch.processor} wires {@code processors} with the serdes, sink and store
 * registry of {@code support}; the processors run the rules of {@code domain} over the formats of {@code readmodel},
 * stored through {@code state}.
 *
 * <p>A rule whose classes are missing fails rather than passing empty (ArchUnit's {@code failOnEmptyShould}).
 */
class ArchitectureRulesTest {

  private static final String ROOT = "io.stunwatch.processor";
  private static final String DOMAIN = "io.stunwatch.processor.domain..";
  private static final String PROCESSORS = "io.stunwatch.processor.processors..";
  private static final String SUPPORT = "io.stunwatch.processor.support..";
  private static final String READ_MODEL = "io.stunwatch.processor.readmodel..";
  private static final String STATE = "io.stunwatch.processor.state..";

  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.stunwatch");
  }

  @Test
  void theDomainRulesUseNoKafka() {
    noClasses().that().resideInAPackage(DOMAIN)
        .should().dependOnClassesThat().resideInAPackage("org.apache.kafka..")
        .because("the rules of a migration, an impact and a forecast are tested and read without Kafka")
        .check(classes);
  }

  @Test
  void theDomainRulesDependOnNoProcessorNodeStoreOrWiring() {
    noClasses().that().resideInAPackage(DOMAIN)
        .should().dependOnClassesThat().resideInAnyPackage(PROCESSORS, SUPPORT, STATE, ROOT)
        .check(classes);
  }

  @Test
  void theReadModelIsFormatsOnlyAndKnowsNoRulesOrProcessors() {
    noClasses().that().resideInAPackage(READ_MODEL)
        .should().dependOnClassesThat().resideInAnyPackage(DOMAIN, PROCESSORS, SUPPORT, ROOT)
        .because("the API reads the read model; what it pulls in, the API gets")
        .check(classes);
  }

  @Test
  void theStoreInfrastructureKnowsNothingOfStunwatch() {
    noClasses().that().resideInAPackage(STATE)
        .should().dependOnClassesThat().resideInAnyPackage(DOMAIN, PROCESSORS, SUPPORT, READ_MODEL, ROOT,
            "io.stunwatch.model..")
        .check(classes);
  }

  @Test
  void theApiReadsTheProcessorOnlyThroughTheReadModel() {
    // io.stunwatch.processor itself (StreamsProcessor, ProcessorConfig, GuardConfig) is how `stunwatch api` starts
    // the processor it serves; everything else it reads is the read model.
    noClasses().that().resideInAPackage("io.stunwatch.api..")
        .should().dependOnClassesThat().resideInAnyPackage(DOMAIN, PROCESSORS, SUPPORT, STATE)
        .check(classes);
  }

  @Test
  void onlyTheStatePackageTouchesKafkaStreamsInternals() {
    noClasses().that().resideOutsideOfPackage(STATE)
        .should().dependOnClassesThat().resideInAPackage("org.apache.kafka.streams..internals..")
        .because("Streams' internals change between releases without notice; one package pays for each upgrade")
        .check(classes);
  }

  @Test
  void theCollectorsKnowNothingOfTheProcessorOrTheApi() {
    noClasses().that().resideInAPackage("io.stunwatch.collectors..")
        .should().dependOnClassesThat().resideInAnyPackage("io.stunwatch.processor..", "io.stunwatch.api..")
        .because("a collector runs alone on a worker or beside vCenter, with only the event contracts")
        .check(classes);
  }

  @Test
  void theBenchmarksAreNotInTheProduct() {
    noClasses().should().resideInAPackage("io.stunwatch.bench..")
        .orShould().implement(AddedCommand.class)
        .because("the benchmarks (module benchmarks) run from a clone beside the product jar and are never shipped")
        .check(classes);
  }

  @Test
  void onlyTheSshShellKnowsTheSshLibrary() {
    noClasses().that().haveNameNotMatching("io\\.stunwatch\\.collectors\\.hosts\\.MinaSshHostShell(\\$.*)?")
        .should().dependOnClassesThat().resideInAPackage("org.apache.sshd..")
        .because("collect hosts speaks to its hosts through HostShell: the SSH library can be replaced in one class")
        .check(classes);
  }

  @Test
  void theApiHttpClassesDoNoPaging() {
    DescribedPredicate<JavaMethodCall> listReads = DescribedPredicate.describe("a read of the migration lists",
        call -> call.getTargetOwner().getName().equals("io.stunwatch.api.StoreReader")
            && call.getName().startsWith("migrations"));
    noClasses().that().resideInAPackage("io.stunwatch.api").and().haveSimpleNameEndingWith("Endpoint")
        .should().callMethod("io.stunwatch.api.StoreReader", "migrationsOfVm", "java.lang.String",
            "io.stunwatch.processor.readmodel.VmOrderKeys$Order", "boolean", "java.lang.String", "int")
        .because("a page read a piece at a time is MigrationPages' work; an endpoint keeps to HTTP")
        .check(classes);
    noClasses().that().haveFullyQualifiedName("io.stunwatch.api.MigrationsEndpoint")
        .should().callMethodWhere(listReads)
        .because("the list endpoints read their pages through MigrationPages")
        .check(classes);
  }
}
