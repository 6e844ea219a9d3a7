package io.rustcdc.flink.mysql;

import static io.rustcdc.flink.testing.StreamTestSupport.events;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlServer;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * A server with {@code lower_case_table_names} = 1 stores names in lower case and ignores the case
 * statements spell them in: their schema changes and truncations are of the tables the catalogue and the
 * table maps name. On both flavors: Oracle MySQL takes the setting only when its data folder is initialised,
 * so its server starts from a folder initialised with it (and 2 is refused on a case-sensitive file system).
 */
@Timeout(120)
class MySqlNameCaseITCase {
    private static MySqlServer server;

    @BeforeAll
    static void startServer() {
        Assumptions.assumeFalse(MySqlServer.external(), "needs a server of its own with lower_case_table_names = 1");
        server = MySqlServer.startPrivate("--lower-case-table-names=1");
    }

    @Test
    void statementsNameTablesInAnyCase(TestInfo test) throws Exception {
        MySqlDatabase db = server.createDatabase(test.getTestMethod().orElseThrow().getName());
        String upper = db.name().toUpperCase(Locale.ROOT);
        db.execute("CREATE TABLE Orders (id INT PRIMARY KEY, v VARCHAR(10))", "CREATE TABLE \u00c9T\u00c9 (id INT PRIMARY KEY)",
                "CREATE TABLE STRA\u1e9eE_\u0410 (id INT PRIMARY KEY)");
        // the server folds names by utf8mb3_general_ci's case table, older than Java's (which folds U+1E9E to U+00DF)
        String folded = db.queryValue("SELECT table_name FROM information_schema.tables WHERE table_schema = '"
                + db.name() + "' AND table_name LIKE 'stra%'");
        assertThat(folded).isEqualTo(db.queryValue("SELECT LOWER(CONVERT('STRA\u1e9eE_\u0410' USING utf8mb3) "
                + "COLLATE utf8mb3_general_ci)"));
        assertThat(db.query("SELECT table_name FROM information_schema.tables WHERE table_schema = '" + db.name()
                + "'")).extracting(r -> r.get(0)).containsExactlyInAnyOrder("orders", "\u00e9t\u00e9", folded);
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start;
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            start = session.prepareStream(List.of(table(db, "orders"), table(db, "\u00e9t\u00e9"), table(db, folded)), false);
        }
        TableFilter filter = TableFilter.of(List.of(db.name() + ".orders", db.name() + ".\u00e9t\u00e9",
                db.name() + "." + folded), List.of());
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, filter)) {
            db.execute("INSERT INTO ORDERS VALUES (1, 'a')");
            assertThat(describe(events(stream, 1))).containsExactly("insert orders");
            db.execute("ALTER TABLE " + upper + ".ORDERS ADD COLUMN w INT", "INSERT INTO orders VALUES (2, 'b', 3)",
                    "TRUNCATE Orders", "ALTER TABLE \u00c9T\u00c9 ADD COLUMN w INT", "TRUNCATE `\u00c9t\u00e9`",
                    "INSERT INTO \u00e9t\u00e9 VALUES (4, 5)");
            List<ChangeEvent> events = events(stream, 6);
            assertThat(describe(events)).containsExactly("schema_change orders", "insert orders", "truncate orders",
                    "schema_change \u00e9t\u00e9", "truncate \u00e9t\u00e9", "insert \u00e9t\u00e9");
            assertThat(events).extracting(ChangeEvent::table).allMatch(t -> t.database().equals(db.name()));
            assertThat(events.get(0).shapeChanges()).extracting(c -> c.kind().name()).containsExactly("COLUMN_ADDED");
            db.execute("INSERT INTO " + folded + " VALUES (1)", "TRUNCATE STRA\u1e9eE_\u0410");
            assertThat(describe(events(stream, 2))).containsExactly("insert " + folded, "truncate " + folded);

            // a change logged as a statement names its table in any case too, and fails the stream
            try (Connection c = db.admin(); Statement s = c.createStatement()) {
                s.execute("SET SESSION binlog_format = 'STATEMENT'");
                s.execute("INSERT INTO \u00c9T\u00c9 VALUES (6, 7)");
            }
            assertThatThrownBy(() -> events(stream, 1))
                    .isInstanceOfSatisfying(CdcException.class,
                            e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.PREREQUISITE))
                    .hasMessageContaining("logged as a statement, not as rows")
                    .hasMessageContaining(db.name() + ".\u00e9t\u00e9");
        }
    }

    private static TableId table(MySqlDatabase db, String name) {
        return TableId.of(db.name(), db.name(), name);
    }

    private static List<String> describe(List<ChangeEvent> events) {
        return events.stream().map(e -> e.op().wireName() + " " + e.table().table()).collect(Collectors.toList());
    }
}
