package io.rustcdc.flink.mysql;

import static io.rustcdc.flink.testing.StreamTestSupport.events;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.StreamRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Partition (and tablespace) statements change rows without row events: on a captured table they fail the stream,
 * those that keep the rows pass. Until 2026-12-06 the stream passed the former as unknown schema changes, the
 * removed and swapped-in rows missing.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(180)
class MySqlPartitionDdlITCase {
    private static final String PARTITIONED = " (id INT PRIMARY KEY) PARTITION BY RANGE (id) (PARTITION p0 VALUES "
            + "LESS THAN (10), PARTITION p1 VALUES LESS THAN (20), PARTITION p2 VALUES LESS THAN (30), PARTITION p3 "
            + "VALUES LESS THAN MAXVALUE)";

    @Test
    void statementsThatChangeRowsUnloggedFailTheStreamNamingTheTable(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE part" + PARTITIONED, "CREATE TABLE swap (id INT PRIMARY KEY)",
                "CREATE TABLE disc (id INT PRIMARY KEY)", "INSERT INTO part VALUES (1), (2), (11), (12), (21), (31)",
                "INSERT INTO swap VALUES (15)", "INSERT INTO disc VALUES (1)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        failsAt(connector, db, "part", "ALTER TABLE part TRUNCATE PARTITION p0", "TRUNCATE PARTITION");
        MySqlPosition exchange = prepare(connector, db, "part");
        failsAt(connector, db, "part", "ALTER TABLE part EXCHANGE PARTITION p1 WITH TABLE swap", "EXCHANGE PARTITION");
        // only the swapped table captured: its rows changed too
        try (ChangeStream<MySqlPosition> stream = connector.openStream(exchange, only(db, "swap"))) {
            assertFails(stream, db.name() + ".swap", "EXCHANGE PARTITION");
        }
        failsAt(connector, db, "part", "ALTER TABLE part DROP PARTITION p2", "DROP PARTITION");
        if (!db.server().isMariaDb()) { // MariaDB discards no single partition
            failsAt(connector, db, "part", "ALTER TABLE part DISCARD PARTITION p3 TABLESPACE",
                    "DISCARD PARTITION TABLESPACE");
        }
        failsAt(connector, db, "disc", "ALTER TABLE disc DISCARD TABLESPACE", "DISCARD TABLESPACE");
        if (db.server().isMariaDb()) {
            db.execute("CREATE TABLE conv" + PARTITIONED, "INSERT INTO conv VALUES (1), (11)");
            MySqlPosition convert = prepare(connector, db, "conv");
            failsAt(connector, db, "conv", "ALTER TABLE conv CONVERT PARTITION p1 TO TABLE conv_out", "CONVERT PARTITION");
            try (ChangeStream<MySqlPosition> stream = connector.openStream(convert, only(db, "conv_out"))) {
                assertFails(stream, db.name() + ".conv_out", "CONVERT PARTITION");
            }
        }
        // another table's partition statement passes
        db.execute("CREATE TABLE other" + PARTITIONED, "CREATE TABLE kept (id INT PRIMARY KEY)");
        MySqlPosition start = prepare(connector, db, "kept");
        db.execute("ALTER TABLE other TRUNCATE PARTITION p0", "INSERT INTO kept VALUES (7)");
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, only(db, "kept"))) {
            assertThat(events(stream, 1)).extracting(e -> e.op().wireName() + " " + e.after().get(0))
                    .containsExactly("insert 7");
        }
    }

    @Test
    void statementsThatKeepTheRowsPassWithTheStreamExact(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE whole" + PARTITIONED, "CREATE TABLE hashed (id INT PRIMARY KEY) PARTITION BY HASH (id) "
                + "PARTITIONS 4");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, db, "whole");
        db.execute("INSERT INTO whole VALUES (1), (11), (21), (31)", "INSERT INTO hashed VALUES (1), (2), (3), (4)",
                "ALTER TABLE whole REORGANIZE PARTITION p3 INTO (PARTITION p3 VALUES LESS THAN (40), "
                        + "PARTITION p4 VALUES LESS THAN MAXVALUE)",
                "ALTER TABLE whole REORGANIZE PARTITION p0, p1 INTO (PARTITION p01 VALUES LESS THAN (20))",
                "ALTER TABLE whole REBUILD PARTITION p01", "ALTER TABLE whole OPTIMIZE PARTITION p2",
                "ALTER TABLE whole ANALYZE PARTITION p2", "ALTER TABLE whole CHECK PARTITION p2",
                "ALTER TABLE whole REPAIR PARTITION p2", "ALTER TABLE hashed COALESCE PARTITION 2",
                "ALTER TABLE hashed ADD PARTITION PARTITIONS 1", "ALTER TABLE whole REMOVE PARTITIONING",
                "ALTER TABLE whole PARTITION BY HASH (id) PARTITIONS 3",
                "INSERT INTO whole VALUES (41)", "INSERT INTO hashed VALUES (5)");
        TableFilter filter = TableFilter.of(List.of(db.name() + ".whole", db.name() + ".hashed"), List.of());
        List<String> rows = new ArrayList<>();
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, filter)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!rows.contains("insert hashed 5") && System.nanoTime() < deadline) {
                StreamRecord<MySqlPosition> r = stream.poll(Duration.ofSeconds(1));
                ChangeEvent e = r == null ? null : r.event();
                if (e != null && e.op() != Op.SCHEMA_CHANGE) {
                    rows.add(e.op().wireName() + " " + e.table().table() + " " + e.after().get(0));
                }
            }
        }
        // no row events of the statements: the rows stay as they were
        assertThat(rows).containsExactly("insert whole 1", "insert whole 11", "insert whole 21", "insert whole 31",
                "insert hashed 1", "insert hashed 2", "insert hashed 3", "insert hashed 4", "insert whole 41",
                "insert hashed 5");
        assertThat(db.query("SELECT COUNT(*) FROM whole").get(0).get(0)).isEqualTo("5");
    }

    private static void failsAt(MySqlConnector connector, MySqlDatabase db, String table, String sql, String clause)
            throws Exception {
        MySqlPosition start = prepare(connector, db, table);
        db.execute(sql);
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, only(db, table))) {
            assertFails(stream, db.name() + "." + table, clause);
        }
    }

    private static void assertFails(ChangeStream<MySqlPosition> stream, String table, String clause) {
        assertThatThrownBy(() -> events(stream, 1))
                .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                .hasMessageContaining("ALTER TABLE ... " + clause + " at ")
                .hasMessageContaining("changed rows of " + table + " without logging them as rows")
                .hasMessageContaining("Restart the source without its state so that a new snapshot reads the table");
    }

    private static TableFilter only(MySqlDatabase db, String table) {
        return TableFilter.of(List.of(db.name() + "." + table), List.of());
    }

    private static MySqlPosition prepare(MySqlConnector connector, MySqlDatabase db, String table) {
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            return session.prepareStream(List.of(TableId.of(db.name(), db.name(), table)), false);
        }
    }
}
