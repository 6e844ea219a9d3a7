package io.rustcdc.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.postgres.PostgresOptions;
import io.rustcdc.flink.source.CdcSourceOptions;
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
        String docs = Files.readString(Path.of("../docs/postgres.md")) + Files.readString(Path.of("../docs/datastream.md"))
                + Files.readString(Path.of("../docs/sql.md"));
        List<String> missing = new ArrayList<>();
        for (Class<?> holder : List.of(PostgresOptions.class, CdcSourceOptions.class, SqlOptions.class)) {
            for (ConfigOption<?> option : options(holder)) {
                if (!docs.contains("`" + option.key() + "`")) {
                    missing.add(option.key());
                }
            }
        }
        assertThat(missing).as("options not documented in docs/*.md").isEmpty();
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
        for (ConfigOption<?> o : options(CdcSourceOptions.class)) {
            if (!o.key().startsWith("table.")) { // one SQL table is one source table: table-name, not lists
                expected.add(o.key());
            }
        }
        expected.remove(PostgresOptions.CAPTURE_LOGICAL_MESSAGES.key()); // messages are not rows of a table
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
