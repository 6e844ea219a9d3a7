package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.rustcdc.flink.source.model.TableId;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.factories.FactoryUtil;
import org.junit.jupiter.api.Test;

/**
 * The catalog factories' options, found by {@code 'type'}, and the catalogs' naming; no database is reached
 * (creating a catalog connects to nothing: its calls do).
 */
class CdcCatalogFactoryTest {
    private static final String SECRET = "catalog-secret-3141";

    private static Catalog create(Map<String, String> options) {
        return FactoryUtil.createCatalog("cat", options, new Configuration(), CdcCatalogFactoryTest.class.getClassLoader());
    }

    private static Map<String, String> options(String type, String... more) {
        Map<String, String> options = new HashMap<>(Map.of("type", type, "hostname", "db.internal", "username", "cdc",
                "password.env", "DB_PASSWORD"));
        for (int i = 0; i < more.length; i += 2) {
            options.put(more[i], more[i + 1]);
        }
        return options;
    }

    private static String trace(Throwable e) {
        StringWriter out = new StringWriter();
        e.printStackTrace(new PrintWriter(out));
        return out.toString();
    }

    @Test
    void eachTypeCreatesItsCatalogWithoutConnecting() {
        assertThat(create(options("rustcdc-postgres", "database-name", "shop")).getDefaultDatabase()).isEqualTo("shop");
        assertThat(create(options("rustcdc-sqlserver", "database-name", "shop")).getDefaultDatabase()).isEqualTo("shop");
        assertThat(create(options("rustcdc-mysql", "default-database", "shop")).getDefaultDatabase()).isEqualTo("shop");
        assertThat(create(options("rustcdc-mariadb", "default-database", "shop", "server-id", "5400",
                "table.include-list", "shop.*;crm.*", "scan.startup.mode", "latest-offset")).getDefaultDatabase())
                .isEqualTo("shop");
    }

    @Test
    void aLiteralPasswordIsRefusedWithoutShowingIt() {
        for (String type : List.of("rustcdc-postgres", "rustcdc-mysql", "rustcdc-mariadb", "rustcdc-sqlserver")) {
            Map<String, String> options = options(type, "database-name", "shop", "default-database", "shop",
                    "password", SECRET);
            options.remove("password.env");
            Throwable e = catchThrowable(() -> create(options));
            assertThat(trace(e)).as(type).contains("does not take 'password'", "'password.env'", "'password.file'")
                    .doesNotContain(SECRET);
        }
    }

    @Test
    void theCatalogNamesTablesItselfSoTableOptionsAreRefused() {
        assertThat(trace(catchThrowable(() -> create(options("rustcdc-postgres", "database-name", "shop",
                "table-name", "public.orders"))))).contains("table-name");
        assertThat(trace(catchThrowable(() -> create(options("rustcdc-mariadb", "default-database", "shop",
                "database-name", "shop"))))).contains("database-name");
        assertThat(trace(catchThrowable(() -> create(options("rustcdc-mysql")))))
                .contains("Missing required options", "default-database");
        assertThat(trace(catchThrowable(() -> create(options("rustcdc-postgres")))))
                .contains("Missing required options", "database-name");
    }

    /** Every option of a connector's tables is an option of its catalog, but those that name a table. */
    @Test
    void theCatalogTakesEveryTableOptionButTheTablesNameAndALiteralPassword() {
        Map<CdcCatalogFactory, Set<String>> own = Map.of(new PostgresCatalogFactory(), Set.of(),
                new SqlServerCatalogFactory(), Set.of(), new MySqlCatalogFactory(), Set.of("default-database"),
                new MySqlCatalogFactory.MariaDb(), Set.of("default-database"));
        own.forEach((catalog, ownKeys) -> {
            Set<String> expected = keys(catalog.tableFactory().requiredOptions());
            expected.addAll(keys(catalog.tableFactory().optionalOptions()));
            expected.removeAll(keys(catalog.namingOptions()));
            expected.remove("password");
            expected.addAll(Set.of("table.include-list", "table.exclude-list"));
            expected.addAll(ownKeys);
            Set<String> accepted = keys(catalog.requiredOptions());
            accepted.addAll(keys(catalog.optionalOptions()));
            assertThat(accepted).as(catalog.factoryIdentifier()).isEqualTo(expected);
        });
    }

    private static Set<String> keys(Set<ConfigOption<?>> options) {
        Set<String> keys = new HashSet<>();
        options.forEach(o -> keys.add(o.key()));
        return keys;
    }

    @Test
    void schemaQualifiedNamingIsOneDatabaseWithSchemaDotTableNames() {
        CatalogNaming naming = CatalogNaming.schemaQualified("shop");
        TableId orders = TableId.of("shop", "public", "orders");
        assertThat(naming.databases(List.of())).containsExactly("shop");
        assertThat(naming.objectName(orders)).isEqualTo("public.orders");
        assertThat(naming.databaseOf(orders)).isEqualTo("shop");
        assertThat(naming.table("shop", "public.orders")).isEqualTo(orders);
        assertThat(naming.table("shop", "public.odd.name")).isEqualTo(TableId.of("shop", "public", "odd.name"));
        assertThat(naming.table("shop", "orders")).isNull();
        assertThat(naming.table("shop", ".orders")).isNull();
        assertThat(naming.table("shop", "public.")).isNull();
        assertThat(naming.table("crm", "public.orders")).isNull();
        assertThat(naming.tableOptions(orders)).isEqualTo(Map.of("table-name", "public.orders"));
    }

    @Test
    void databaseNamingIsEachDatabaseWithItsTables() {
        CatalogNaming naming = CatalogNaming.databases();
        TableId orders = TableId.of("shop", "shop", "orders");
        assertThat(naming.databases(List.of(TableId.of("shop", "shop", "b"), TableId.of("crm", "crm", "a"), orders)))
                .containsExactly("crm", "shop");
        assertThat(naming.objectName(orders)).isEqualTo("orders");
        assertThat(naming.databaseOf(orders)).isEqualTo("shop");
        assertThat(naming.table("shop", "orders")).isEqualTo(orders);
        assertThat(naming.tableOptions(orders)).isEqualTo(Map.of("database-name", "shop", "table-name", "orders"));
    }

    /** A catalog table reads only itself: its table options are escaped, never a pattern, never split at a dot. */
    @Test
    void catalogTableOptionsNameExactlyTheirTableWhateverItsNameHolds() {
        CatalogNaming pg = CatalogNaming.schemaQualified("shop");
        CatalogNaming my = CatalogNaming.databases();
        for (String odd : List.of("orders", "odd.name", "a_b", "star*", "what?", "back\\slash", "Mixed", "x.*")) {
            for (String schema : List.of("public", "my.schema", "s*?")) {
                TableId pgTable = TableId.of("shop", schema, odd);
                SourceTables read = SourceTables.qualified("shop", pg.tableOptions(pgTable).get("table-name"), "public");
                assertThat(read.isPattern()).as(odd).isFalse();
                assertThat(read.literal()).isEqualTo(pgTable);
                assertThat(read.matches(pgTable)).isTrue();
                assertThat(read.matches(TableId.of("shop", schema, odd + "x"))).isFalse();
                assertThat(read.matches(TableId.of("shop", schema, odd.toUpperCase(java.util.Locale.ROOT))))
                        .isEqualTo(odd.equals(odd.toUpperCase(java.util.Locale.ROOT)));
                TableId myTable = TableId.of(schema, schema, odd);
                Map<String, String> options = my.tableOptions(myTable);
                SourceTables mine = SourceTables.of(null, options.get("database-name"), options.get("table-name"));
                assertThat(mine.literal()).isEqualTo(myTable);
                // the framework's filter captures at least the table
                assertThat(io.rustcdc.flink.source.filter.TableFilter.of(List.of(mine.includePattern()), List.of())
                        .matches(myTable)).isTrue();
                assertThat(io.rustcdc.flink.source.filter.TableFilter.of(List.of(read.includePattern()), List.of())
                        .matches(pgTable)).isTrue();
            }
        }
    }
}
