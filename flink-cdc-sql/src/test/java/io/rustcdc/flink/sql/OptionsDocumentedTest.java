package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.mysql.MySqlOptions;
import io.rustcdc.flink.postgres.PostgresOptions;
import io.rustcdc.flink.source.CdcSourceOptions;
import io.rustcdc.flink.source.control.ControlOptions;
import io.rustcdc.flink.sqlserver.SqlServerOptions;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.junit.jupiter.api.Test;

/** Every option the code accepts is documented, and the SQL factory accepts every connector and source option. */
class OptionsDocumentedTest {

    @Test
    void everyOptionAppearsInTheDocs() throws IOException {
        String common = Files.readString(Path.of("../docs/datastream.md")) + Files.readString(Path.of("../docs/sql.md"));
        List<String> missing = new ArrayList<>();
        missing.addAll(undocumented(common + Files.readString(Path.of("../docs/postgres.md")),
                PostgresOptions.class, CdcSourceOptions.class, ControlOptions.class, SqlOptions.class));
        missing.addAll(undocumented(common + Files.readString(Path.of("../docs/mysql.md")), MySqlOptions.class));
        missing.addAll(undocumented(common + Files.readString(Path.of("../docs/sqlserver.md")), SqlServerOptions.class));
        assertThat(missing).as("options not documented in docs/*.md").isEmpty();
    }

    private static List<String> undocumented(String docs, Class<?>... holders) {
        List<String> missing = new ArrayList<>();
        for (Class<?> holder : holders) {
            for (ConfigOption<?> option : options(holder)) {
                if (!docs.contains("`" + option.key() + "`")) {
                    missing.add(holder.getSimpleName() + ": " + option.key());
                }
            }
        }
        return missing;
    }

    @Test
    void onlyTheConnectionAndTheTableAreRequired() {
        for (CdcTableFactory<?, ?> factory : List.of(new PostgresTableFactory(), new MySqlTableFactory(),
                new MySqlTableFactory.MariaDb(), new SqlServerTableFactory())) {
            List<String> required = new ArrayList<>();
            factory.requiredOptions().forEach(o -> required.add(o.key()));
            assertThat(required).as(factory.factoryIdentifier()).doesNotContainAnyElementsOf(
                    CdcTableFactory.SOURCE_OPTIONS.stream().map(ConfigOption::key).toList());
            assertThat(required).as(factory.factoryIdentifier()).contains("hostname", "username", "database-name",
                    "table-name").hasSizeLessThanOrEqualTo(5); // MySQL: server-id too
        }
    }

    @Test
    void theSqlFactoryAcceptsEveryConnectorAndSourceOption() {
        PostgresTableFactory factory = new PostgresTableFactory();
        List<String> accepted = new ArrayList<>();
        factory.requiredOptions().forEach(o -> accepted.add(o.key()));
        factory.optionalOptions().forEach(o -> accepted.add(o.key()));
        List<String> expected = new ArrayList<>();
        for (Class<?> holder : List.of(PostgresOptions.class, SqlOptions.class)) {
            options(holder).forEach(o -> expected.add(o.key()));
        }
        options(ControlOptions.class).forEach(o -> expected.add(o.key()));
        for (ConfigOption<?> o : options(CdcSourceOptions.class)) {
            if (!o.key().startsWith("table.")) { // one SQL table is one source table: table-name, not lists
                expected.add(o.key());
            }
        }
        expected.remove(PostgresOptions.CAPTURE_LOGICAL_MESSAGES.key()); // messages are not rows of a table
        FlinkCdcNames.POSTGRES.forEach(o -> expected.add(o.key())); // Flink CDC's names for ours
        assertThat(accepted).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void theMySqlFactoriesAcceptEveryConnectorAndSourceOption() {
        for (MySqlTableFactory factory : List.of(new MySqlTableFactory(), new MySqlTableFactory.MariaDb())) {
            List<String> accepted = new ArrayList<>();
            factory.requiredOptions().forEach(o -> accepted.add(o.key()));
            factory.optionalOptions().forEach(o -> accepted.add(o.key()));
            List<String> expected = new ArrayList<>();
            for (Class<?> holder : List.of(MySqlOptions.class, SqlOptions.class)) {
                options(holder).forEach(o -> expected.add(o.key()));
            }
            expected.remove(SqlOptions.SCHEMA_NAME.key()); // a MySQL table is database-name + table-name
            options(ControlOptions.class).forEach(o -> expected.add(o.key()));
            for (ConfigOption<?> o : options(CdcSourceOptions.class)) {
                if (!o.key().startsWith("table.")) {
                    expected.add(o.key());
                }
            }
            FlinkCdcNames.MYSQL.forEach(o -> expected.add(o.key())); // Flink CDC's names for ours
            assertThat(accepted).as(factory.factoryIdentifier()).containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    @Test
    void theSqlServerFactoryAcceptsEveryConnectorAndSourceOption() {
        SqlServerTableFactory factory = new SqlServerTableFactory();
        List<String> accepted = new ArrayList<>();
        factory.requiredOptions().forEach(o -> accepted.add(o.key()));
        factory.optionalOptions().forEach(o -> accepted.add(o.key()));
        List<String> expected = new ArrayList<>();
        for (Class<?> holder : List.of(SqlServerOptions.class, SqlOptions.class)) {
            options(holder).forEach(o -> expected.add(o.key()));
        }
        options(ControlOptions.class).forEach(o -> expected.add(o.key()));
        for (ConfigOption<?> o : options(CdcSourceOptions.class)) {
            if (!o.key().startsWith("table.")) {
                expected.add(o.key());
            }
        }
        FlinkCdcNames.COMMON.forEach(o -> expected.add(o.key())); // Flink CDC's names for ours
        assertThat(accepted).containsExactlyInAnyOrderElementsOf(expected);
    }

    private static List<ConfigOption<?>> options(Class<?> holder) {
        List<ConfigOption<?>> options = new ArrayList<>();
        for (Field f : holder.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && ConfigOption.class.isAssignableFrom(f.getType())) {
                try {
                    options.add((ConfigOption<?>) f.get(null));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return options;
    }
}
