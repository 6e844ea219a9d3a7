package io.rustcdc.flink.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering of docs/architecture.md, checked on the production classes of every module (this
 * module sees them all): the framework names no connector, no connector another, the model depends
 * on nothing of the runtime, and the SPI and the schema history not on the reader or enumerator.
 * A violation fails the build with the offending class and dependency.
 */
class LayeringTest {
    private static final String FRAMEWORK = "io.rustcdc.flink.source..";
    private static final List<String> CONNECTORS = List.of("postgres", "mysql", "sqlserver");
    private static final String[] RUNTIME = {"io.rustcdc.flink.source.reader..", "io.rustcdc.flink.source.enumerator..",
        "io.rustcdc.flink.source.split..", "io.rustcdc.flink.source.deserializer..", "io.rustcdc.flink.source.json.."};

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(LayeringTest::isProduction)
                .importPackages("io.rustcdc.flink");
    }

    /** Production classes only: no test classes, whether in a module's folder or a test jar. */
    private static boolean isProduction(com.tngtech.archunit.core.importer.Location location) {
        return ImportOption.Predefined.DO_NOT_INCLUDE_TESTS.includes(location) && !location.contains("-tests.jar")
                && !location.contains("/e2e-tests/") && !location.contains("/benchmark-");
    }

    @Test
    void everyModuleIsImported() {
        List<String> names = classes.stream().map(JavaClass::getName).collect(Collectors.toList());
        assertThat(names).contains("io.rustcdc.flink.source.CdcSource", "io.rustcdc.flink.postgres.PostgresConnector",
                "io.rustcdc.flink.mysql.MySqlConnector", "io.rustcdc.flink.sqlserver.SqlServerConnector",
                "io.rustcdc.flink.sql.RowDataDeserializer");
    }

    @Test
    void theFrameworkNamesNoConnectorNorTheSqlLayer() {
        noClasses().that().resideInAPackage(FRAMEWORK)
                .should().dependOnClassesThat().resideInAnyPackage("io.rustcdc.flink.postgres..",
                        "io.rustcdc.flink.mysql..", "io.rustcdc.flink.sqlserver..", "io.rustcdc.flink.sql..")
                .because("the framework knows no database: a connector plugs in through the SPI")
                .check(classes);
    }

    @Test
    void noConnectorReachesIntoAnother() {
        for (String connector : CONNECTORS) {
            String[] others = CONNECTORS.stream().filter(c -> !c.equals(connector))
                    .map(c -> "io.rustcdc.flink." + c + "..").toArray(String[]::new);
            noClasses().that().resideInAPackage("io.rustcdc.flink." + connector + "..")
                    .should().dependOnClassesThat().resideInAnyPackage(others)
                    .orShould().dependOnClassesThat().resideInAPackage("io.rustcdc.flink.sql..")
                    .because("a connector depends on the framework only")
                    .check(classes);
        }
    }

    @Test
    void theModelDependsOnNothingOfTheRuntime() {
        classes().that().resideInAPackage("io.rustcdc.flink.source.model..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("io.rustcdc.flink.source.model..", "java..",
                        "javax.annotation..", "org.apache.flink.annotation..")
                .because("events, rows and shapes are plain values that any layer may use")
                .check(classes);
    }

    @Test
    void theSpiAndTheSchemaHistoryDoNotDependOnTheRuntime() {
        noClasses().that().resideInAnyPackage("io.rustcdc.flink.source.spi..", "io.rustcdc.flink.source.history..",
                        "io.rustcdc.flink.source.filter..")
                .should().dependOnClassesThat().resideInAnyPackage(RUNTIME)
                .because("a connector implements the SPI without the reader, the enumerator or the split model")
                .check(classes);
    }

    @Test
    void theRulesSeeDependenciesAcrossModules() {
        // the SQL layer depends on both connectors: a rule forbidding that must fail, or the rules see nothing
        ArchRule forbidden = noClasses().that().resideInAPackage("io.rustcdc.flink.sql..")
                .should().dependOnClassesThat().resideInAPackage("io.rustcdc.flink.mysql..");
        assertThatThrownBy(() -> forbidden.check(classes)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("io.rustcdc.flink.mysql");
    }
}
