package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.StreamRecord;
import io.rustcdc.flink.source.spi.TableDescription;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Oracle MySQL's snapshot chunk, completed from the binlog between the GTIDs executed before its
 * snapshot and the binlog's end after it (docs/mysql.md, "Oracle MySQL: each chunk completed from
 * the binlog"). Skipped on MariaDB, whose chunks take the snapshot's own binlog position.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(180)
class MySqlOracleSnapshotITCase {

    @Test
    void staleRowsCompletedFromTheBinlogAreTheTableAtTheEndPosition(MySqlDatabase db) throws Exception {
        assumeOracle(db);
        db.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, v VARCHAR(20), b VARBINARY(4))");
        for (int i = 1; i <= 12; i++) {
            db.execute("INSERT INTO t VALUES (" + i + ", 'v" + i + "', x'0" + (i % 10) + "')");
        }
        MySqlConnector connector = MySqlConnector.create(io.rustcdc.flink.mysql.testing.MySqlTestConfigs.config(db));
        MySqlSourceConfig config = connector.config();
        TableId id = TableId.of(db.name(), db.name(), "t");
        Object[] after = {2L};
        Object[] upTo = {10L};
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession();
                java.sql.Connection catalogue = MySqlConnections.connect(config)) {
            TableDescription table = session.describe(id);
            List<Row> stale = new ArrayList<>();
            session.readChunk(table, List.of("id"), after, upTo, e -> stale.add(e.after()));
            assertThat(stale).hasSize(8);
            MySqlGtidSet low = MySqlGtidSet.parse(db.queryValue("SELECT @@GLOBAL.gtid_executed"));
            db.execute("UPDATE t SET v = 'changed' WHERE id = 3",
                    "DELETE FROM t WHERE id = 4",
                    "UPDATE t SET id = 50 WHERE id = 5", // moves out of the range
                    "INSERT INTO t VALUES (20, 'out', NULL)",
                    "INSERT INTO t VALUES (4, 'again', x'ff')");
            db.execute("DELETE FROM t WHERE id = 9");
            db.execute("UPDATE t SET id = 9 WHERE id = 1"); // into the range
            db.execute("UPDATE t SET b = NULL WHERE id = 10");
            List<String> status = db.binlogStatus();
            MySqlPosition high = MySqlPosition.at(ServerFlavor.MYSQL, status.get(0), Long.parseLong(status.get(1)));
            db.execute("UPDATE t SET v = 'after H' WHERE id = 6"); // after the end position: not applied

            ChunkBackfill backfill = new ChunkBackfill(config, catalogue, new MySqlKeyPlacement(),
                    BinlogTables.charsets(catalogue), table, List.of("id"), after, upTo, stale);
            assertThat(backfill.apply(low, high, null)).isTrue();
            assertThat(backfill.nextBound()).isNotNull();
            assertThat(backfill.nextBound().compareTo(high)).isLessThanOrEqualTo(0);
            List<Object> ids = new ArrayList<>();
            List<Object> values = new ArrayList<>();
            backfill.rows().forEach(r -> {
                ids.add(r.get("id"));
                values.add(r.get("v"));
            });
            assertThat(ids).containsExactly(3L, 4L, 6L, 7L, 8L, 9L, 10L);
            assertThat(values).containsExactly("changed", "again", "v6", "v7", "v8", "v1", "v10");

            // a chunk read now is the table as it is, rows equal to the binlog's images
            db.execute("UPDATE t SET v = 'v6' WHERE id = 6");
            List<Row> now = new ArrayList<>();
            session.readChunk(table, List.of("id"), after, upTo, e -> now.add(e.after()));
            assertThat(now).containsExactlyElementsOf(backfill.rows());
        }
    }

    /**
     * A chunk whose end position is just past a binlog file's header (a rotation, nothing written since): its
     * completion reaches the end at the header's last event. Until 2026-12-06 it reconnected without end, as the
     * source's start did (MySqlStreamITCase's rotation test).
     */
    @Test
    void aChunkCompletedRightAfterABinlogRotationReachesItsEnd(MySqlDatabase db) throws Exception {
        assumeOracle(db);
        db.execute("CREATE TABLE r (id BIGINT PRIMARY KEY)", "INSERT INTO r VALUES (1), (2), (3)");
        MySqlConnector connector = MySqlConnector.create(io.rustcdc.flink.mysql.testing.MySqlTestConfigs.config(db));
        MySqlSourceConfig config = connector.config();
        TableId id = TableId.of(db.name(), db.name(), "r");
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession();
                java.sql.Connection catalogue = MySqlConnections.connect(config)) {
            TableDescription table = session.describe(id);
            List<Row> read = new ArrayList<>();
            session.readChunk(table, List.of("id"), null, null, e -> read.add(e.after()));
            MySqlGtidSet low = MySqlGtidSet.parse(db.queryValue("SELECT @@GLOBAL.gtid_executed"));
            db.execute("FLUSH BINARY LOGS");
            List<String> status = db.binlogStatus();
            MySqlPosition high = MySqlPosition.at(ServerFlavor.MYSQL, status.get(0), Long.parseLong(status.get(1)));
            ChunkBackfill backfill = new ChunkBackfill(config, catalogue, new MySqlKeyPlacement(),
                    BinlogTables.charsets(catalogue), table, List.of("id"), null, null, read);
            assertThat(org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(30),
                    () -> backfill.apply(low, high, null))).isTrue();
            assertThat(backfill.rows()).containsExactlyElementsOf(read);
            assertThat(backfill.high(high).mysqlGtids()).isEqualTo(low);
        }
    }

    /**
     * The window's filter once named the table by the pattern {@code database.table}, which the filter splits at its
     * first dot: for a database whose name holds one the window matched none of the table's changes, and the chunk
     * kept the rows as its snapshot read them (found by an adversarial probe, 2026-12-06).
     */
    @Test
    void aTableOfADatabaseWithADotInItsNameIsCompletedFromItsChanges(MySqlDatabase db) throws Exception {
        assumeOracle(db);
        String database = db.name() + ".x";
        try (java.sql.Connection admin = db.admin(); java.sql.Statement s = admin.createStatement()) {
            s.execute("CREATE DATABASE `" + database + "`");
        }
        try {
            String t = "`" + database + "`.t";
            db.execute("CREATE TABLE " + t + " (id BIGINT PRIMARY KEY, v VARCHAR(20))");
            for (int i = 1; i <= 6; i++) {
                db.execute("INSERT INTO " + t + " VALUES (" + i + ", 'v" + i + "')");
            }
            MySqlConnector connector = MySqlConnector.create(io.rustcdc.flink.mysql.testing.MySqlTestConfigs.config(db));
            TableId id = TableId.of(database, database, "t");
            try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession();
                    java.sql.Connection catalogue = MySqlConnections.connect(connector.config())) {
                TableDescription table = session.describe(id);
                List<Row> stale = new ArrayList<>();
                session.readChunk(table, List.of("id"), null, null, e -> stale.add(e.after()));
                MySqlGtidSet low = MySqlGtidSet.parse(db.queryValue("SELECT @@GLOBAL.gtid_executed"));
                db.execute("UPDATE " + t + " SET v = 'changed' WHERE id = 3", "DELETE FROM " + t + " WHERE id = 4",
                        "INSERT INTO " + t + " VALUES (7, 'new')");
                List<String> status = db.binlogStatus();
                MySqlPosition high = MySqlPosition.at(ServerFlavor.MYSQL, status.get(0), Long.parseLong(status.get(1)));
                ChunkBackfill window = new ChunkBackfill(connector.config(), catalogue, new MySqlKeyPlacement(),
                        BinlogTables.charsets(catalogue), table, List.of("id"), null, null, List.of());
                assertThat(window.apply(low, high, null)).isTrue();
                List<Row> merged = new ArrayList<>(); // as ChunkReader streams a chunk through its window
                stale.forEach(r -> window.merge(r, merged::add));
                merged.addAll(window.rows());
                List<Row> now = new ArrayList<>();
                session.readChunk(table, List.of("id"), null, null, e -> now.add(e.after()));
                assertThat(now).extracting(r -> r.get("v")).containsExactly("v1", "v2", "changed", "v5", "v6", "new");
                assertThat(merged).containsExactlyElementsOf(now);
            }
        } finally {
            try (java.sql.Connection admin = db.admin(); java.sql.Statement s = admin.createStatement()) {
                s.execute("DROP DATABASE `" + database + "`");
            }
        }
    }

    /**
     * A configured chunk key column may repeat a value or be NULL: the window once kept its changes by the chunk
     * key, so a change of one of the rows that share a value went to whichever of them the snapshot read first,
     * and a delete removed them all (rows lost and doubled; found by adversarial probes, 2026-12-06). Rows are now
     * told apart by the primary key; only a table without one, whose rows a NULL chunk key cannot tell apart,
     * fails, naming the column and the option.
     */
    @Test
    void rowsSharingAChunkKeyValueAreToldApartByThePrimaryKey(MySqlDatabase db) throws Exception {
        assumeOracle(db);
        db.execute("CREATE TABLE shared (id INT PRIMARY KEY, grp INT NULL, v INT NOT NULL)",
                "INSERT INTO shared VALUES (1, 5, 0), (2, 5, 0), (3, 6, 0), (4, 6, 0), (5, NULL, 0), (6, NULL, 0)");
        List<String> changes = List.of("DELETE FROM shared WHERE id = 1", "UPDATE shared SET v = 7 WHERE id = 3",
                "INSERT INTO shared VALUES (7, 5, 0)", "UPDATE shared SET grp = 6 WHERE id = 2");
        assertThat(throughWindow(db, "shared", "grp", changes))
                .extracting(r -> r.get("id") + ":" + r.get("grp") + ":" + r.get("v"))
                .containsExactlyInAnyOrder("2:6:0", "3:6:7", "4:6:0", "5:null:0", "6:null:0", "7:5:0");
        assertThat(throughWindow(db, "shared", "grp", List.of("UPDATE shared SET v = 8 WHERE id = 6")))
                .extracting(r -> r.get("id") + ":" + r.get("v")).contains("5:0", "6:8");

        db.execute("CREATE TABLE nokey (id INT NOT NULL, u INT NULL UNIQUE, v INT NOT NULL)",
                "INSERT INTO nokey VALUES (1, NULL, 0), (2, NULL, 0), (3, 30, 0)");
        assertThat(throughWindow(db, "nokey", "u", List.of("UPDATE nokey SET v = 3 WHERE id = 3")))
                .extracting(r -> r.get("id") + ":" + r.get("v")).containsExactlyInAnyOrder("1:0", "2:0", "3:3");
        assertThatThrownBy(() -> throughWindow(db, "nokey", "u", List.of("UPDATE nokey SET v = 5 WHERE id = 2")))
                .isInstanceOf(CdcException.class)
                .hasMessageContaining("table " + db.name() + ".nokey whose chunk key column u is NULL")
                .hasMessageContaining("scan.incremental.snapshot.chunk.key-column")
                .hasMessageContaining("give every row a value of u and declare it NOT NULL");
    }

    /**
     * A chunk by a configured chunk key that is not the primary key: whether a change lies in the range is its chunk
     * key's, which row it is its primary key's. Rows move into and out of the range, within it, and change their
     * primary key.
     */
    @Test
    void aChunkOfAConfiguredKeyPlacesChangesByThatKeyAndTellsRowsApartByThePrimaryKey(MySqlDatabase db)
            throws Exception {
        assumeOracle(db);
        db.execute("CREATE TABLE ranged (id BIGINT PRIMARY KEY, grp BIGINT NOT NULL, v INT NOT NULL)",
                "INSERT INTO ranged VALUES (1, 10, 0), (2, 20, 0), (3, 20, 0), (4, 30, 0), (5, 40, 0), (25, 5, 0)");
        List<String> changes = List.of("UPDATE ranged SET grp = 25 WHERE id = 1", "UPDATE ranged SET grp = 35 WHERE id = 3",
                "UPDATE ranged SET id = 20, v = 2 WHERE id = 2", "DELETE FROM ranged WHERE id = 4",
                "INSERT INTO ranged VALUES (6, 30, 0)", "INSERT INTO ranged VALUES (7, 50, 0)",
                "UPDATE ranged SET v = 9 WHERE id = 25");
        assertThat(throughWindow(db, "ranged", "grp", new Object[] {10L}, new Object[] {30L}, changes))
                .extracting(r -> r.get("id") + ":" + r.get("grp") + ":" + r.get("v"))
                .containsExactlyInAnyOrder("1:25:0", "20:20:2", "6:30:0");
    }

    private static List<Row> throughWindow(MySqlDatabase db, String name, String column, List<String> changes)
            throws Exception {
        return throughWindow(db, name, column, null, null, changes);
    }

    /**
     * A snapshot of the chunk ({@code after}, {@code upTo}] of table {@code name} chunked by {@code column}, then
     * {@code changes}, then the window streamed through as ChunkReader does; asserts the result is the chunk as the
     * table holds it now.
     */
    private static List<Row> throughWindow(MySqlDatabase db, String name, String column, Object[] after, Object[] upTo,
            List<String> changes) throws Exception {
        MySqlConnector connector = MySqlConnector.create(io.rustcdc.flink.mysql.testing.MySqlTestConfigs.config(db));
        List<String> chunkKey = List.of(column);
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession();
                java.sql.Connection catalogue = MySqlConnections.connect(connector.config())) {
            TableDescription table = session.describe(TableId.of(db.name(), db.name(), name));
            List<Row> stale = new ArrayList<>();
            session.readChunk(table, chunkKey, after, upTo, e -> stale.add(e.after()));
            MySqlGtidSet low = MySqlGtidSet.parse(db.queryValue("SELECT @@GLOBAL.gtid_executed"));
            for (String change : changes) {
                db.execute(change);
            }
            ChunkBackfill window = new ChunkBackfill(connector.config(), catalogue, new MySqlKeyPlacement(),
                    BinlogTables.charsets(catalogue), table, chunkKey, after, upTo, List.of());
            assertThat(window.apply(low, high(db), null)).isTrue();
            List<Row> merged = new ArrayList<>();
            stale.forEach(r -> window.merge(r, merged::add));
            merged.addAll(window.rows());
            List<Row> now = new ArrayList<>();
            session.readChunk(table, chunkKey, after, upTo, e -> now.add(e.after()));
            assertThat(merged).containsExactlyInAnyOrderElementsOf(now);
            return merged;
        }
    }

    private static MySqlPosition high(MySqlDatabase db) {
        List<String> status = db.binlogStatus();
        return MySqlPosition.at(ServerFlavor.MYSQL, status.get(0), Long.parseLong(status.get(1)));
    }

    @Test
    void backfillsAsServerIdZeroDoNotDropTheStream(MySqlDatabase db) throws Exception {
        assumeOracle(db);
        db.execute("CREATE TABLE s (id INT PRIMARY KEY, v INT)", "INSERT INTO s VALUES (1, 1)");
        MySqlConnector connector = MySqlConnector.create(io.rustcdc.flink.mysql.testing.MySqlTestConfigs.config(db));
        TableId id = TableId.of(db.name(), db.name(), "s");
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession();
                CatalogSession<MySqlPosition, MySqlPosition> other = connector.openSession();
                ChangeStream<MySqlPosition> stream = connector.openStream(session.currentPosition(),
                        TableFilter.of(List.of(db.name() + ".s"), List.of()))) {
            TableDescription table = session.describe(id);
            for (int i = 0; i < 5; i++) {
                db.execute("UPDATE s SET v = v + 1");
                MySqlPosition a = session.readChunk(table, List.of("id"), null, null, e -> { });
                MySqlPosition b = other.readChunk(table, List.of("id"), null, null, e -> { });
                assertThat(a.gtidText()).as("a mark carries the GTIDs before it").isNotNull();
                assertThat(b.compareTo(a)).isGreaterThanOrEqualTo(0);
            }
            int updates = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (updates < 5 && System.nanoTime() < deadline) {
                StreamRecord<MySqlPosition> r = stream.poll(Duration.ofMillis(200));
                if (r != null && r.event() != null) {
                    updates++;
                }
            }
            assertThat(updates).as("the stream kept its connection").isEqualTo(5);
        }
    }

    @Test
    void aSnapshotWithoutGtidsIsRefusedNamingTheSettings(MySqlDatabase db) throws Exception {
        assumeOracle(db);
        db.execute("CREATE TABLE g (id INT PRIMARY KEY)");
        MySqlConnector connector = MySqlConnector.create(io.rustcdc.flink.mysql.testing.MySqlTestConfigs.config(db));
        db.execute("SET GLOBAL gtid_mode = ON_PERMISSIVE");
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            assertThatThrownBy(() -> session.checkSnapshotPrerequisites(List.of(TableId.of(db.name(), db.name(), "g"))))
                    .isInstanceOfSatisfying(CdcException.class,
                            e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.PREREQUISITE))
                    .hasMessageContaining("gtid_mode = ON_PERMISSIVE")
                    .hasMessageContaining("gtid_mode = ON")
                    .hasMessageContaining("enforce_gtid_consistency = ON")
                    .hasMessageContaining("startup mode 'latest'");
        } finally {
            db.execute("SET GLOBAL gtid_mode = ON");
        }
    }

    private static void assumeOracle(MySqlDatabase db) {
        Assumptions.assumeFalse(db.server().isMariaDb(), "Oracle MySQL's chunk backfill; MariaDB reports the "
                + "snapshot's binlog position");
    }
}
