package io.rustcdc.flink.mysql;

import static io.rustcdc.flink.testing.StreamTestSupport.events;
import static io.rustcdc.flink.testing.StreamTestSupport.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlFeatures;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.ShapeChange;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.StreamRecord;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** The binlog stream against real MariaDB: changes, positions, resume, filters, shapes and failures. */
@ExtendWith(MySqlExtension.class)
@Timeout(120)
class MySqlStreamITCase {

    @Test
    void insertsUpdatesAndDeletesCarryWholeRowsAndPositionsWithGtids(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, db, "t");
        assertThat(start.gtidText()).as("the start position's GTIDs").isNotNull();
        db.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')", "UPDATE t SET v = 'c' WHERE id = 1",
                "DELETE FROM t WHERE id = 2");
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, TableFilter.all())) {
            List<StreamRecord<MySqlPosition>> records = records(stream, 4, Duration.ofSeconds(30));
            List<String> changes = records.stream().filter(r -> r.event() != null).map(r -> describe(r.event()))
                    .collect(Collectors.toList());
            assertThat(changes).containsExactly("insert null -> 1|a", "insert null -> 2|b", "update 1|a -> 1|c",
                    "delete 2|b -> null");
            assertThat(records.get(records.size() - 1).event().source().connector())
                    .isEqualTo(db.server().isMariaDb() ? "mariadb" : "mysql");
            // positions only grow, and a commit adds the transaction's GTID
            for (int i = 1; i < records.size(); i++) {
                assertThat(records.get(i).position()).isGreaterThanOrEqualTo(records.get(i - 1).position());
            }
            MySqlPosition last = records.get(records.size() - 1).position();
            String executed = db.server().isMariaDb() ? db.queryValue("SELECT @@gtid_binlog_pos")
                    : MySqlGtidSet.parse(db.queryValue("SELECT @@GLOBAL.gtid_executed")).toString();
            // the records after the last change (its commit) until the position holds every transaction written
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!executed.equals(last.gtidText()) && System.nanoTime() < deadline) {
                StreamRecord<MySqlPosition> more = stream.poll(Duration.ofSeconds(1));
                last = more == null ? last : more.position();
            }
            for (StreamRecord<MySqlPosition> more; (more = stream.poll(Duration.ofMillis(500))) != null; ) {
                last = more.position(); // and nothing past it
            }
            assertThat(last.gtidText()).as("every transaction read, no other").isEqualTo(executed);
            assertThat(last.eventsTaken()).as("after the last commit: between transactions").isZero();
            // each change names its transaction and its place in it
            List<ChangeEvent> changed = records.stream().filter(r -> r.event() != null).map(StreamRecord::event)
                    .collect(Collectors.toList());
            assertThat(changed).extracting(e -> e.transaction().index()).containsExactly(1L, 2L, 1L, 1L);
            assertThat(changed.get(0).transaction().id()).isEqualTo(changed.get(1).transaction().id())
                    .isNotEqualTo(changed.get(2).transaction().id())
                    .matches(db.server().isMariaDb() ? "\\d+-\\d+-\\d+" : "[0-9a-f-]{36}:\\d+");
        }
    }

    @Test
    void aRestartInsideATransactionDeliversEachRowOnce(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE restart (id INT PRIMARY KEY, v VARCHAR(10))");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, db, "restart");
        try (var c = db.admin(); var s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("INSERT INTO restart VALUES (1, 'a'), (2, 'b'), (3, 'c')");
            s.execute("INSERT INTO restart VALUES (4, 'd')");
            c.commit();
        }
        MySqlPosition inside;
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, TableFilter.all())) {
            List<StreamRecord<MySqlPosition>> records = records(stream, 2, Duration.ofSeconds(30));
            inside = records.get(records.size() - 1).position();
            assertThat(inside.rowsTaken()).isEqualTo(2);
        }
        try (ChangeStream<MySqlPosition> stream = connector.openStream(inside, TableFilter.all())) {
            assertThat(events(stream, 2).stream().map(MySqlStreamITCase::describe))
                    .containsExactly("insert null -> 3|c", "insert null -> 4|d");
        }
    }

    @Test
    void tablesOutsideTheFilterAreSkippedWhileThePositionMoves(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE kept (id INT PRIMARY KEY, v VARCHAR(10))",
                "CREATE TABLE skipped (id INT PRIMARY KEY, v VARCHAR(10))");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, db, "kept");
        db.execute("INSERT INTO skipped VALUES (1, 'x')", "INSERT INTO kept VALUES (2, 'y')");
        TableFilter filter = TableFilter.of(List.of(db.name() + ".kept"), List.of());
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, filter)) {
            List<StreamRecord<MySqlPosition>> records = records(stream, 1, Duration.ofSeconds(30));
            assertThat(records.stream().filter(r -> r.event() != null).map(r -> describe(r.event())))
                    .containsExactly("insert null -> 2|y");
            assertThat(records.stream().filter(r -> r.event() == null).count())
                    .as("progress records for the skipped transaction").isGreaterThan(0);
        }
    }

    @Test
    void rowsCarryTheCatalogueShapeOnlyWhileItAgreesWithTheTableMap(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE altered (id INT PRIMARY KEY, v VARCHAR(10))");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, db, "altered");
        db.execute("INSERT INTO altered VALUES (1, 'a')", "ALTER TABLE altered ADD COLUMN w INT",
                "INSERT INTO altered VALUES (2, 'b', 7)");
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, TableFilter.all())) {
            List<ChangeEvent> events = events(stream, 3);
            // written before the ALTER, read after it: the catalogue no longer describes the row
            assertThat(events.get(0).shape()).isNull();
            assertThat(events.get(0).after().type().names()).containsExactly("id", "v");
            assertThat(events.get(1).op()).isEqualTo(Op.SCHEMA_CHANGE);
            ChangeEvent after = events.get(2);
            assertThat(after.shape()).isNotNull();
            assertThat(after.shape().columns()).extracting(c -> c.name() + " " + c.dataType())
                    .containsExactly(db.server().isMariaDb() ? "id int(11)" : "id int", "v varchar(10)",
                            db.server().isMariaDb() ? "w int(11)" : "w int"); // MySQL 8.0.19+ shows no display width
            assertThat(after.after().get("w")).isEqualTo(7L);
        }
    }

    @Test
    void ddlOfCapturedTablesBecomesSchemaChangesWithStablePositionsAndOthersOnlyMoveThePosition(MySqlDatabase db)
            throws Exception {
        db.execute("CREATE TABLE ddl_t (id INT PRIMARY KEY, v VARCHAR(10))");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, db, "ddl_t");
        TableFilter filter = TableFilter.of(List.of(db.name() + ".ddl_t*"), List.of());
        List<String> first = new java.util.ArrayList<>();
        List<MySqlPosition> positions = new java.util.ArrayList<>();
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, filter)) {
            // read as it happens, as a running source does: each statement's shape is the catalogue's then
            String[][] steps = {{"ALTER TABLE ddl_t ADD COLUMN w INT AFTER id"}, {"INSERT INTO ddl_t VALUES (1, 2, 'a')"},
                    {"CREATE TABLE ddl_other (id INT PRIMARY KEY)", "TRUNCATE TABLE ddl_t"},
                    {"RENAME TABLE ddl_t TO ddl_t2"}, {"DROP TABLE ddl_t2, ddl_other"}};
            int[] expected = {1, 1, 1, 2, 1};
            for (int step = 0; step < steps.length; step++) {
                db.execute(steps[step]);
                for (StreamRecord<MySqlPosition> r : records(stream, expected[step], Duration.ofSeconds(30))) {
                    if (r.event() != null) {
                        first.add(describeDdl(r.event()));
                        positions.add(r.position());
                    }
                }
            }
        }
        // the ALTER is unknown (no shape held before it: no row read since the stream opened), so it carries no
        // shape either (the catalogue may already hold later statements); classified statements carry theirs
        assertThat(first).containsExactly(
                "schema_change ddl_t ALTER_TABLE",
                "insert ddl_t id,w,v",
                "truncate ddl_t",
                "schema_change ddl_t DROP_TABLE",
                "schema_change ddl_t2 CREATE_TABLE id,w,v",
                "schema_change ddl_t2 DROP_TABLE");
        // re-reading gives the same positions: the schema history's identities, so a replay records nothing twice
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, filter)) {
            List<StreamRecord<MySqlPosition>> again = records(stream, 6, Duration.ofSeconds(30)).stream()
                    .filter(r -> r.event() != null).collect(Collectors.toList());
            assertThat(again).extracting(StreamRecord::position).isEqualTo(positions);
            // read after the table is gone: no shape rather than a wrong one; rows get theirs from table maps
            assertThat(describeDdl(again.get(0).event())).isEqualTo("schema_change ddl_t ALTER_TABLE");
            assertThat(again.get(1).event().after().type().names()).containsExactly("id", "w", "v");
        }
        // resuming between the two changes of the RENAME emits the second one only
        try (ChangeStream<MySqlPosition> stream = connector.openStream(positions.get(3), filter)) {
            assertThat(events(stream, 1).get(0).after().get("ddl_type")).isEqualTo("CREATE_TABLE");
        }
    }

    @Test
    void createTableAsSelectEmitsItsSchemaChangeBeforeItsRowsAndResumesInsideExactly(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE src (id INT PRIMARY KEY, v VARCHAR(10))", "INSERT INTO src VALUES (1, 'a'), (2, 'b')");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, db, "src");
        // one transaction: the CREATE statement, then the copied rows (names are UTF-8 whatever the JVM's charset)
        db.execute("CREATE TABLE `c\u00f6py` (PRIMARY KEY (id)) AS SELECT * FROM src");
        TableFilter filter = TableFilter.of(List.of(db.name() + ".c\u00f6py"), List.of());
        List<StreamRecord<MySqlPosition>> first;
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, filter)) {
            first = records(stream, 3, Duration.ofSeconds(30)).stream().filter(r -> r.event() != null)
                    .collect(Collectors.toList());
        }
        assertThat(first).extracting(r -> describeDdl(r.event()))
                .containsExactly("schema_change c\u00f6py CREATE_TABLE id,v", "insert c\u00f6py id,v", "insert c\u00f6py id,v");
        assertThat(first.get(2).event().after().get("id")).isEqualTo(2L);
        for (int i = 0; i < 2; i++) {
            try (ChangeStream<MySqlPosition> stream = connector.openStream(first.get(i).position(), filter)) {
                List<ChangeEvent> rest = events(stream, 2 - i);
                assertThat(rest).as("resumed after record %d", i).extracting(e -> e.after().get("id"))
                        .isEqualTo(i == 0 ? List.of(1L, 2L) : List.of(2L));
            }
        }
    }

    @Test
    void aTableRenamedIntoTheFilterFailsInsteadOfArrivingWithoutItsRows(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE target (id INT PRIMARY KEY)", "CREATE TABLE staging (id INT PRIMARY KEY)",
                "INSERT INTO staging VALUES (1), (2)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, db, "target");
        // the blue/green swap: staging's rows become target's without a change in the binlog
        db.execute("RENAME TABLE target TO target_old, staging TO target");
        TableFilter filter = TableFilter.of(List.of(db.name() + ".target"), List.of());
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, filter)) {
            assertThatThrownBy(() -> events(stream, 1))
                    .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                    .hasMessageContaining("renames " + db.name() + ".staging, which this source does not capture, to "
                            + db.name() + ".target");
        }
        // both names captured: the rows were delivered under the old name, the rename is only schema changes
        TableFilter both = TableFilter.of(List.of(db.name() + ".target", db.name() + ".staging"), List.of());
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, both)) {
            assertThat(events(stream, 2)).extracting(MySqlStreamITCase::describeDdl)
                    .containsExactly("schema_change target DROP_TABLE", "schema_change staging DROP_TABLE");
        }
    }

    @Test
    void anInvalidEnumValueFailsOnBothPathsNamingTableColumnAndTypeNotTheValue(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE e (id INT PRIMARY KEY, mood ENUM('sad','ok'))");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, db, "e");
        db.execute("SET SESSION sql_mode = ''", "INSERT INTO e VALUES (1, 'furious')");
        String column = db.name() + ".e.mood";
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, TableFilter.all())) {
            assertThatThrownBy(() -> events(stream, 1))
                    .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.DECODE))
                    .hasMessageContaining(column).hasMessageContaining("ENUM index 0").hasMessageNotContaining("furious");
        }
        MySqlFeatures.assumeSnapshot(db.server()); // the stream's half above ran on every server
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            var table = session.describe(TableId.of(db.name(), db.name(), "e"));
            assertThatThrownBy(() -> session.readChunk(table, List.of("id"), null, null, e -> { }))
                    .isInstanceOf(CdcException.class).hasMessageContaining(column + " (enum('sad','ok'))");
        }
    }

    @Test
    void aCompressedEventWrittenAfterTheServerCheckIsDecodedNotSkipped(MySqlDatabase db) throws Exception {
        boolean mariaDb = db.server().isMariaDb();
        db.execute("CREATE TABLE zipped (id INT PRIMARY KEY, v TEXT)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, db, "zipped");
        try {
            // turned on after the source checked the server: MariaDB compresses events over 256 bytes, Oracle
            // MySQL each transaction of the session (MySqlCompressedBinlogITCase has the rest)
            db.execute(mariaDb ? "SET GLOBAL log_bin_compress = ON" : "SET SESSION binlog_transaction_compression = ON",
                    "INSERT INTO zipped VALUES (1, REPEAT('x', 5000))");
        } finally {
            if (mariaDb) {
                db.execute("SET GLOBAL log_bin_compress = OFF");
            }
        }
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, TableFilter.all())) {
            assertThat(events(stream, 1).get(0).after().get("v")).isEqualTo("x".repeat(5000));
        }
    }

    @Test
    void aSystemVersionedTableIsRefusedOnBothPathsInsteadOfItsHistoryRowsBecomingChanges(MySqlDatabase db)
            throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(db.server().isMariaDb(), "system versioning is MariaDB's");
        db.execute("CREATE TABLE versioned (id INT PRIMARY KEY, a INT) WITH SYSTEM VERSIONING",
                "CREATE TABLE plain (id INT PRIMARY KEY)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        TableId versioned = TableId.of(db.name(), db.name(), "versioned");
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            assertThat(session.discoverTables(TableFilter.of(List.of(db.name() + ".*"), List.of())))
                    .as("found, to be refused rather than skipped").contains(versioned);
            assertThatThrownBy(() -> session.describe(versioned))
                    .isInstanceOfSatisfying(CdcException.class,
                            e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.PREREQUISITE))
                    .hasMessageContaining(db.name() + ".versioned is system-versioned")
                    .hasMessageContaining("ALTER TABLE " + db.name() + ".versioned DROP SYSTEM VERSIONING");
        }
        MySqlPosition start = prepare(connector, db, "plain");
        db.execute("INSERT INTO versioned VALUES (1, 1)", "DELETE FROM versioned");
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, TableFilter.all())) {
            assertThatThrownBy(() -> events(stream, 1)).isInstanceOf(CdcException.class)
                    .hasMessageContaining(db.name() + ".versioned is system-versioned");
        }
    }

    @Test
    void aSequencesStateIsNotATablesChange(MySqlDatabase db) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(db.server().isMariaDb(), "sequences are MariaDB's");
        db.execute("CREATE TABLE after_seq (id INT PRIMARY KEY)", "CREATE SEQUENCE seq");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, db, "after_seq");
        // NEXTVAL writes the sequence's state to the binlog as a row of a table named like the sequence
        db.execute("SELECT NEXTVAL(seq)", "INSERT INTO after_seq VALUES (1)");
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, TableFilter.of(List.of(db.name() + ".*"),
                List.of()))) {
            ChangeEvent first = events(stream, 1).get(0);
            assertThat(first.table().table()).isEqualTo("after_seq");
        }
    }

    @Test
    void aPreparedXaTransactionFailsInsteadOfEmittingRowsThatMayBeRolledBack(MySqlDatabase db) throws Exception {
        // both servers log an XA transaction's rows at its prepare; Oracle MySQL says only after them whether it
        // was a prepare (until 2026-12-06 its rows were delivered, those of a transaction rolled back after)
        db.execute("CREATE TABLE xa_t (id INT PRIMARY KEY)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, db, "xa_t");
        db.execute("XA START 'one'", "INSERT INTO xa_t VALUES (1)", "XA END 'one'", "XA COMMIT 'one' ONE PHASE");
        prepareXa(db, "two", "INSERT INTO xa_t VALUES (2)", null);
        db.execute("XA ROLLBACK 'two'"); // row 2 never existed
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, TableFilter.all())) {
            assertThat(describe(events(stream, 1).get(0))).as("one phase: an ordinary commit")
                    .isEqualTo("insert null -> 1");
            assertThatThrownBy(() -> events(stream, 1))
                    .isInstanceOfSatisfying(CdcException.class,
                            e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.PREREQUISITE))
                    .hasMessageContaining(db.name() + ".xa_t in an XA transaction prepared at");
        }
    }

    @Test
    void aChangeLoggedAsAStatementToACapturedTableFailsInsteadOfBeingSkipped(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE by_rows (id INT PRIMARY KEY)", "CREATE TABLE elsewhere (id INT PRIMARY KEY)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, db, "by_rows");
        try (var c = db.admin(); var s = c.createStatement()) {
            s.execute("SET SESSION binlog_format = 'STATEMENT'");
            s.execute("INSERT INTO elsewhere VALUES (1)"); // not captured: no rows lost for this source
            s.execute("SET SESSION binlog_format = 'ROW'");
            s.execute("INSERT INTO by_rows VALUES (2)");
            s.execute("SET SESSION binlog_format = 'STATEMENT'");
            s.execute("INSERT INTO by_rows VALUES (3)");
        }
        TableFilter filter = TableFilter.of(List.of(db.name() + ".by_rows"), List.of());
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, filter)) {
            assertThat(describe(events(stream, 1).get(0))).isEqualTo("insert null -> 2");
            assertThatThrownBy(() -> events(stream, 1))
                    .isInstanceOfSatisfying(CdcException.class,
                            e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.PREREQUISITE))
                    .hasMessageContaining("logged as a statement, not as rows")
                    .hasMessageContaining(db.name() + ".by_rows").hasMessageNotContaining("VALUES (3)");
        }
    }

    /**
     * Statements logged as statements whose changes the source cannot place, or which fill a captured table with
     * rows the binlog does not hold, fail the stream: a SELECT (or DO, or {@code SET @v =}) calling a stored function
     * that changed a captured table, a {@code WITH ...} UPDATE (Oracle MySQL), a {@code CREATE TABLE ... SELECT}
     * of a captured table. Until 2026-12-06 they were passed over (found by an adversarial probe).
     */
    @Test
    void statementsThatChangeTablesTheyDoNotNameOrFillOneWithoutRowsFail(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE fcap (id INT PRIMARY KEY, v INT)", "INSERT INTO fcap VALUES (1, 1), (2, 2)",
                "CREATE FUNCTION addone(x INT) RETURNS INT DETERMINISTIC MODIFIES SQL DATA "
                        + "BEGIN INSERT INTO fcap VALUES (x, x); RETURN x; END");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        TableFilter filter = TableFilter.of(List.of(db.name() + ".fcap", db.name() + ".ctas"), List.of());
        List<String> statements = new java.util.ArrayList<>(List.of("SELECT addone(10)", "DO addone(11)",
                "SET @v = addone(12)", "CREATE TABLE ctas (PRIMARY KEY (id)) AS SELECT * FROM fcap"));
        if (!db.server().isMariaDb()) { // MariaDB has no WITH before UPDATE
            statements.add("WITH x AS (SELECT 1 AS id) UPDATE fcap SET v = 5 WHERE id IN (SELECT id FROM x)");
        }
        List<MySqlPosition> starts = new java.util.ArrayList<>();
        try (var c = db.admin(); var s = c.createStatement()) {
            s.execute("USE " + db.name());
            s.execute("SET SESSION binlog_format = 'STATEMENT'");
            for (String statement : statements) {
                starts.add(prepare(connector, db, "fcap"));
                s.execute(statement);
            }
        }
        for (int i = 0; i < statements.size(); i++) {
            String statement = statements.get(i);
            try (ChangeStream<MySqlPosition> stream = connector.openStream(starts.get(i), filter)) {
                assertThatThrownBy(() -> events(stream, 1)).as(statement)
                        .isInstanceOfSatisfying(CdcException.class,
                                e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.PREREQUISITE))
                        .hasMessageContaining("logged as a statement, not as rows")
                        .hasMessageContaining(statement.startsWith("CREATE") ? db.name() + ".ctas"
                                : "tables of database " + db.name());
            }
        }
    }

    /**
     * MariaDB logs the changes a {@code ROLLBACK TO SAVEPOINT} undid when the transaction changed a non-transactional
     * table too, then the rollback as a statement: the stream fails there, before the transaction's end, so that
     * it never moves past it (the changes read before the statement were delivered; with state, the job fails at
     * it again). A transaction of transactional tables alone logs none of them, and streams. Until 2026-12-06 the
     * undone rows were emitted as committed.
     */
    @Test
    void rowsUndoneByARollbackToASavepointFailTheStreamInsteadOfBeingEmitted(MySqlDatabase db) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(db.server().isMariaDb(),
                "Oracle MySQL with GTIDs refuses non-transactional tables in a transaction");
        db.execute("CREATE TABLE sp_cap (id INT PRIMARY KEY)", "CREATE TABLE sp_log (id INT PRIMARY KEY) ENGINE=MyISAM");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, db, "sp_cap");
        db.execute("BEGIN", "INSERT INTO sp_cap VALUES (1)", "SAVEPOINT a", "INSERT INTO sp_cap VALUES (2)",
                "ROLLBACK TO SAVEPOINT a", "COMMIT");
        db.execute("BEGIN", "INSERT INTO sp_cap VALUES (3)", "INSERT INTO sp_log VALUES (3)", "SAVEPOINT b",
                "INSERT INTO sp_cap VALUES (4)", "ROLLBACK TO SAVEPOINT b", "COMMIT");
        assertThat(db.query("SELECT id FROM sp_cap ORDER BY id")).containsExactly(List.of("1"), List.of("3"));
        TableFilter filter = TableFilter.of(List.of(db.name() + ".sp_cap"), List.of());
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, filter)) {
            assertThat(describe(events(stream, 1).get(0))).isEqualTo("insert null -> 1");
            // the changes before the statement were read, the undone one too; the transaction does not end
            assertThat(events(stream, 2)).extracting(MySqlStreamITCase::describe)
                    .containsExactly("insert null -> 3", "insert null -> 4");
            assertThatThrownBy(() -> events(stream, 1))
                    .isInstanceOfSatisfying(CdcException.class,
                            e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                    .hasMessageContaining("holds a ROLLBACK TO SAVEPOINT at ");
        }
    }

    /**
     * {@code LOAD DATA} logged as a statement ({@code Execute_load_query}, the file's rows in the events before it):
     * into a captured table it fails the stream, naming the table at a position of the binlog; into another it
     * passes. Until 2026-12-06 the stream skipped such events without a word.
     */
    @Test
    void loadDataLoggedAsAStatementToACapturedTableFailsInsteadOfBeingSkipped(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE loaded (id INT PRIMARY KEY)", "CREATE TABLE load_other (id INT PRIMARY KEY)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, db, "loaded");
        try (var c = db.admin(); var s = c.createStatement()) {
            String rows = serverFile(db, s, "201\\n202\\n");
            s.execute("USE " + db.name());
            s.execute("SET SESSION binlog_format = 'STATEMENT'");
            s.execute("LOAD DATA INFILE '" + rows + "' INTO TABLE load_other"); // not captured
            s.execute("SET SESSION binlog_format = 'ROW'");
            s.execute("INSERT INTO loaded VALUES (1)");
            s.execute("SET SESSION binlog_format = 'STATEMENT'");
            s.execute("LOAD DATA INFILE '" + rows + "' INTO TABLE loaded");
        }
        TableFilter filter = TableFilter.of(List.of(db.name() + ".loaded"), List.of());
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, filter)) {
            assertThat(describe(events(stream, 1).get(0))).isEqualTo("insert null -> 1");
            assertThatThrownBy(() -> events(stream, 1))
                    .isInstanceOfSatisfying(CdcException.class,
                            e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.PREREQUISITE))
                    .hasMessageContaining("logged as a statement, not as rows")
                    .hasMessageContaining(db.name() + ".loaded").hasMessageNotContaining(":-")
                    .hasMessageMatching("(?s).* at [^ ]+:[0-9]+, to .*");
        }
    }

    /**
     * An incident event: changes of a non-transactional table that outgrew {@code max_binlog_stmt_cache_size} are
     * made and not logged, and the server writes an incident instead (a replica stops there). The stream fails,
     * whatever table the changes were of; one that starts after the incident does not. Until 2026-12-06 the stream
     * passed over the event.
     */
    @Test
    void anIncidentInTheBinlogFailsTheStream(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE unlogged (id INT PRIMARY KEY, v LONGTEXT) ENGINE=MyISAM");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, db, "unlogged");
        String size = db.query("SELECT @@GLOBAL.max_binlog_stmt_cache_size").get(0).get(0);
        db.execute("SET GLOBAL max_binlog_stmt_cache_size = 4096");
        try (var c = db.admin(); var s = c.createStatement()) { // a session begun after the setting
            s.execute("USE " + db.name());
            assertThatThrownBy(() -> s.execute("INSERT INTO unlogged VALUES (1, REPEAT('x', 100000))"))
                    .hasMessageContaining("max_binlog_stmt_cache_size");
        } finally {
            db.execute("SET GLOBAL max_binlog_stmt_cache_size = " + size);
        }
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, TableFilter.all())) {
            assertThatThrownBy(() -> events(stream, 1))
                    .isInstanceOfSatisfying(CdcException.class,
                            e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.STATE))
                    .hasMessageContaining("holds an incident event at ")
                    .hasMessageContaining("restart the source without its state");
        }
        // a stream that starts after it is not failed by it, though a dump by GTIDs is sent the file's start
        MySqlPosition after = prepare(connector, db, "unlogged");
        db.execute("INSERT INTO unlogged VALUES (2, 'b')");
        try (ChangeStream<MySqlPosition> stream = connector.openStream(after, TableFilter.all())) {
            assertThat(describe(events(stream, 1).get(0))).isEqualTo("insert null -> 2|b");
        }
    }

    /**
     * A new file the server may read and write ({@code LOAD DATA INFILE}, {@code INTO DUMPFILE}) holding {@code
     * text} (in SQL's escapes), by its name on the server.
     */
    private static String serverFile(MySqlDatabase db, java.sql.Statement s, String text) throws Exception {
        String dir;
        try (var rs = s.executeQuery("SELECT COALESCE(NULLIF(@@secure_file_priv, ''), @@tmpdir)")) {
            rs.next();
            dir = rs.getString(1).replaceAll("/+$", "");
        }
        String file = dir + "/" + db.name() + "_" + System.nanoTime() + ".txt";
        s.execute("SELECT '" + text + "' INTO DUMPFILE '" + file + "'");
        return file;
    }

    /**
     * A session with ANSI_QUOTES names tables and columns in double quotes: its statements change the
     * captured table (the binlog's query event carries the session's sql_mode), and a change it logs as a
     * statement fails the stream as a backquoted one does.
     */
    @Test
    void ddlOfASessionWithAnsiQuotesNamesItsTablesInDoubleQuotes(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE ansi_t (id INT PRIMARY KEY, v VARCHAR(10))");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, db, "ansi_t");
        TableFilter filter = TableFilter.of(List.of(db.name() + ".ansi_t"), List.of());
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, filter);
                var c = db.admin(); var s = c.createStatement()) {
            s.execute("SET SESSION sql_mode = CONCAT_WS(',', NULLIF(@@sql_mode, ''), 'ANSI_QUOTES')");
            s.execute("INSERT INTO \"ansi_t\" VALUES (1, 'a')"); // a shape held before the ALTER
            assertThat(events(stream, 1)).extracting(MySqlStreamITCase::describeDdl).containsExactly("insert ansi_t id,v");
            s.execute("ALTER TABLE \"ansi_t\" ADD COLUMN \"w\" INT");
            s.execute("INSERT INTO ansi_t VALUES (2, 'b', 3)");
            List<ChangeEvent> altered = events(stream, 2);
            assertThat(altered).extracting(MySqlStreamITCase::describeDdl)
                    .containsExactly("schema_change ansi_t ALTER_TABLE id,v,w", "insert ansi_t id,v,w");
            assertThat(altered.get(0).shapeChanges()).singleElement().satisfies(change -> {
                assertThat(change.kind()).isEqualTo(ShapeChange.Kind.COLUMN_ADDED);
                assertThat(change.after()).extracting(RowShape.Column::name).containsExactly("w");
            });
            s.execute("TRUNCATE \"" + db.name() + "\".\"ansi_t\"");
            s.execute("INSERT INTO ansi_t VALUES (4, 'c', 5)");
            assertThat(events(stream, 2)).extracting(MySqlStreamITCase::describeDdl)
                    .containsExactly("truncate ansi_t", "insert ansi_t id,v,w");
            s.execute("SET SESSION binlog_format = 'STATEMENT'");
            s.execute("INSERT INTO \"ansi_t\" VALUES (6, 'd', 7)");
            assertThatThrownBy(() -> events(stream, 1))
                    .isInstanceOfSatisfying(CdcException.class,
                            e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.PREREQUISITE))
                    .hasMessageContaining("logged as a statement, not as rows").hasMessageContaining(db.name() + ".ansi_t");
        }
    }

    /** A backslash-escaped quote in a string of a DDL statement (the default sql_mode) ends no string. */
    @Test
    void anEscapedQuoteInADdlStringHidesNoClause(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE esc (id INT PRIMARY KEY, v VARCHAR(10))");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, db, "esc");
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, TableFilter.of(List.of(db.name() + ".esc"),
                List.of()))) {
            db.execute("INSERT INTO esc VALUES (1, 'a')"); // a shape held before the ALTER
            assertThat(events(stream, 1)).extracting(MySqlStreamITCase::describeDdl).containsExactly("insert esc id,v");
            db.execute("ALTER TABLE esc COMMENT 'it\\'s, RENAME TO x', ADD COLUMN w INT", "INSERT INTO esc VALUES (2, 'b', 3)");
            List<ChangeEvent> events = events(stream, 2);
            assertThat(events).extracting(MySqlStreamITCase::describeDdl)
                    .containsExactly("schema_change esc ALTER_TABLE id,v,w", "insert esc id,v,w");
            assertThat(events.get(0).shapeChanges()).extracting(ShapeChange::kind)
                    .containsExactly(ShapeChange.Kind.COLUMN_ADDED);
        }
    }

    /**
     * An unquoted name may hold any character from U+0080 on: here a combining acute accent (U+0301) and
     * the euro sign, neither a letter, which the statement's table name keeps.
     */
    @Test
    void ddlNamesAnUnquotedTableWithCombiningMarksAndSymbolsWhole(MySqlDatabase db) throws Exception {
        String name = "cafe\u0301_\u20ac";
        db.execute("CREATE TABLE " + name + " (id INT PRIMARY KEY, v VARCHAR(10))", "INSERT INTO " + name + " VALUES (1, 'a')");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, db, name);
        TableFilter filter = TableFilter.of(List.of(db.name() + "." + name), List.of());
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, filter)) {
            db.execute("INSERT INTO " + name + " VALUES (2, 'b')");
            assertThat(events(stream, 1)).extracting(MySqlStreamITCase::describeDdl).containsExactly("insert " + name + " id,v");
            db.execute("ALTER TABLE " + name + " ADD COLUMN w INT", "INSERT INTO " + name + " VALUES (3, 'c', 4)",
                    "TRUNCATE " + db.name() + "." + name, "INSERT INTO " + name + " VALUES (5, 'd', 6)");
            List<ChangeEvent> events = events(stream, 4);
            assertThat(events).extracting(MySqlStreamITCase::describeDdl).containsExactly(
                    "schema_change " + name + " ALTER_TABLE id,v,w", "insert " + name + " id,v,w",
                    "truncate " + name, "insert " + name + " id,v,w");
            assertThat(events.get(0).table()).isEqualTo(TableId.of(db.name(), db.name(), name));
            assertThat(events.get(0).shapeChanges()).extracting(ShapeChange::kind)
                    .containsExactly(ShapeChange.Kind.COLUMN_ADDED);
        }
    }

    @Test
    void aSecondReaderWithTheSameServerIdFailsTheFirstLoudly(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE shared_id (id INT PRIMARY KEY)");
        MySqlSourceConfig config = MySqlTestConfigs.config(db);
        MySqlConnector connector = MySqlConnector.create(config);
        MySqlPosition start = prepare(connector, db, "shared_id");
        try (ChangeStream<MySqlPosition> first = connector.openStream(start, TableFilter.all());
                ChangeStream<MySqlPosition> second = connector.openStream(start, TableFilter.all())) {
            db.execute("INSERT INTO shared_id VALUES (1)");
            assertThat(events(second, 1)).hasSize(1);
            assertThatThrownBy(() -> events(first, 1))
                    .isInstanceOfSatisfying(CdcException.class,
                            e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.CONFIGURATION))
                    .hasMessageContaining("same server-id " + config.serverId());
        }
    }

    private static String describeDdl(ChangeEvent e) {
        return e.op().wireName() + " " + e.table().table()
                + (e.op() == Op.SCHEMA_CHANGE ? " " + e.after().get("ddl_type") : "")
                + (e.shape() == null ? "" : " " + e.shape().columns().stream().map(c -> c.name())
                        .collect(Collectors.joining(",")));
    }

    @Test
    void xaTransactionsCommittedInOnePhaseStreamWholeAndInOrderAndOthersTablesPreparesPass(MySqlDatabase db)
            throws Exception {
        db.execute("CREATE TABLE xa_c (id INT PRIMARY KEY)", "CREATE TABLE xa_other (id INT PRIMARY KEY)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, db, "xa_c");
        TableFilter filter = TableFilter.of(List.of(db.name() + ".xa_c"), List.of());
        db.execute("INSERT INTO xa_c VALUES (1)");
        prepareXa(db, "other", "INSERT INTO xa_other VALUES (1)", null); // another table's, prepared
        db.execute("XA START 'one'", "INSERT INTO xa_c VALUES (2), (3)", "INSERT INTO xa_other VALUES (2)",
                "UPDATE xa_c SET id = 4 WHERE id = 3", "XA END 'one'", "XA COMMIT 'one' ONE PHASE",
                "XA COMMIT 'other'", "INSERT INTO xa_c VALUES (5)");
        List<String> expected = List.of("insert null -> 1", "insert null -> 2", "insert null -> 3", "update 3 -> 4",
                "insert null -> 5");
        List<MySqlPosition> positions = new java.util.ArrayList<>();
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, filter)) {
            List<String> got = new java.util.ArrayList<>();
            for (StreamRecord<MySqlPosition> r : records(stream, expected.size(), Duration.ofSeconds(30))) {
                if (r.event() != null) {
                    got.add(describe(r.event()));
                    positions.add(r.position());
                }
            }
            assertThat(got).isEqualTo(expected);
        }
        // resumed inside the one-phase transaction, after its second change: the rest of it, then what follows
        try (ChangeStream<MySqlPosition> stream = connector.openStream(positions.get(2), filter)) {
            assertThat(events(stream, 2)).extracting(MySqlStreamITCase::describe)
                    .containsExactly("update 3 -> 4", "insert null -> 5");
        }
    }

    /**
     * A stream prepared right after a binlog rotation, the new file holding no transaction yet (an idle server after
     * FLUSH BINARY LOGS or a restart): until 2026-12-06 Oracle MySQL's start read the GTIDs before its position from
     * the binlog and, meeting no transaction after the file's header, never reached the position.
     */
    @Test
    void aStreamPreparedRightAfterABinlogRotationStartsThere(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE rot (id INT PRIMARY KEY)", "FLUSH BINARY LOGS");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> prepare(connector, db, "rot"));
        db.execute("INSERT INTO rot VALUES (1)");
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, TableFilter.all())) {
            assertThat(describe(events(stream, 1).get(0))).isEqualTo("insert null -> 1");
        }
    }

    /**
     * An XA transaction prepared before the stream's start (so in no snapshot) and committed after it: its rows are
     * logged at the prepare, before the start, and the commit names only its XID. Its prepare is looked for in the
     * binlog: one that changed a captured table fails the stream, naming it; others, and rollbacks, pass.
     */
    @Test
    void anXaTransactionPreparedBeforeTheStartAndCommittedAfterItFailsWhenItChangedACapturedTable(MySqlDatabase db)
            throws Exception {
        db.execute("CREATE TABLE xa_b (id INT PRIMARY KEY)", "CREATE TABLE xa_n (id INT PRIMARY KEY)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        TableFilter filter = TableFilter.of(List.of(db.name() + ".xa_b"), List.of());
        String x = db.name(); // XIDs are the server's: these are this test's
        // on Oracle MySQL in compressed transactions (their events listed after the payload's), and read back by
        // SHOW BINLOG EVENTS 3 events a page; some logged as statements
        String compressed = db.server().isMariaDb() ? null : "SET SESSION binlog_transaction_compression = ON";
        String statements = "SET SESSION binlog_format = 'STATEMENT'";
        prepareXa(db, x + "b1", "INSERT INTO xa_b VALUES (1)", compressed); // committed after the second start
        prepareXa(db, x + "b2", "INSERT INTO xa_b VALUES (2)", null); // rolled back after the start
        prepareXa(db, x + "b3", "INSERT INTO xa_b VALUES (3)", statements); // committed after the start
        prepareXa(db, x + "n1", "INSERT INTO xa_n VALUES (1)", compressed); // another table's
        prepareXa(db, x + "n3", "INSERT INTO xa_n VALUES (3)", statements);
        db.execute("FLUSH BINARY LOGS"); // the prepares in an older file than the commits
        MySqlPosition start = prepare(connector, db, "xa_b");
        prepareXa(db, x + "n2", "INSERT INTO xa_n VALUES (2)", compressed); // prepared after the start
        db.execute("XA COMMIT '" + x + "n1'", "XA ROLLBACK '" + x + "b2'", "XA COMMIT '" + x + "n2'",
                "XA COMMIT '" + x + "n3'", "INSERT INTO xa_b VALUES (4)", "XA COMMIT '" + x + "b3'");
        MySqlPosition second = prepare(connector, db, "xa_b");
        db.execute("XA COMMIT '" + x + "b1'", "INSERT INTO xa_b VALUES (5)");
        int page = XaPrepares.page;
        XaPrepares.page = 3;
        long read = XaPrepares.eventsRead.get();
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, filter)) {
            assertThat(describe(events(stream, 1).get(0))).isEqualTo("insert null -> 4");
            assertFailsAtCommit(() -> events(stream, 1), XaPrepares.xid(hexXid(x + "b3")), start, db, "xa_b");
        }
        // three look-ups (n1, n3, b3), each file read once: the prepares' whole, the commits' up to b3's commit
        assertThat(XaPrepares.eventsRead.get() - read).as("events the look-ups read")
                .isEqualTo(eventsBeforeCommit(db, hexXid(x + "b3")));
        try (ChangeStream<MySqlPosition> stream = connector.openStream(second, filter)) {
            assertFailsAtCommit(() -> events(stream, 1), XaPrepares.xid(hexXid(x + "b1")), second, db, "xa_b");
        } finally {
            XaPrepares.page = page;
        }
    }

    /**
     * Prepares whose changes are logged as statements the look-up must read too: {@code LOAD DATA}'s ({@code
     * Execute_load_query}) and, on MariaDB with {@code log_bin_compress}, a compressed one ({@code
     * Query_compressed}). Until 2026-12-06 their commits passed as changing no captured table.
     */
    @Test
    void anXaTransactionPreparedBeforeTheStartByLoadDataOrACompressedStatementFailsAtItsCommit(MySqlDatabase db)
            throws Exception {
        db.execute("CREATE TABLE xa_l (id INT PRIMARY KEY)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        TableFilter filter = TableFilter.of(List.of(db.name() + ".xa_l"), List.of());
        String x = db.name();
        String statements = "SET SESSION binlog_format = 'STATEMENT'";
        boolean mariaDb = db.server().isMariaDb();
        try {
            try (var c = db.admin(); var s = c.createStatement()) {
                prepareXa(db, x + "l", "LOAD DATA INFILE '" + serverFile(db, s, "7\\n") + "' INTO TABLE xa_l",
                        statements);
                if (mariaDb) { // statements of log_bin_compress_min_len bytes (256) or more are compressed
                    s.execute("SET GLOBAL log_bin_compress = ON");
                    try {
                        prepareXa(db, x + "c", "INSERT INTO xa_l SELECT 8 FROM DUAL WHERE '" + "c".repeat(300)
                                + "' <> ''", statements);
                    } finally {
                        s.execute("SET GLOBAL log_bin_compress = OFF");
                    }
                }
            }
            MySqlPosition start = prepare(connector, db, "xa_l");
            db.execute("XA COMMIT '" + x + "l'");
            MySqlPosition second = prepare(connector, db, "xa_l");
            if (mariaDb) {
                db.execute("XA COMMIT '" + x + "c'");
            }
            try (ChangeStream<MySqlPosition> stream = connector.openStream(start, filter)) {
                assertFailsAtCommit(() -> events(stream, 1), XaPrepares.xid(hexXid(x + "l")), start, db, "xa_l");
            }
            if (mariaDb) {
                try (ChangeStream<MySqlPosition> stream = connector.openStream(second, filter)) {
                    assertFailsAtCommit(() -> events(stream, 1), XaPrepares.xid(hexXid(x + "c")), second, db, "xa_l");
                }
            }
        } finally {
            for (String xid : List.of(x + "l", x + "c")) {
                try {
                    db.execute("XA ROLLBACK '" + xid + "'"); // a prepared one's locks would hold the database's drop
                } catch (Exception committedOrNeverPrepared) {
                    // nothing to end
                }
            }
        }
    }

    private static void assertFailsAtCommit(org.assertj.core.api.ThrowableAssert.ThrowingCallable read, String xid,
            MySqlPosition start, MySqlDatabase db, String table) {
        assertThatThrownBy(read)
                .isInstanceOfSatisfying(CdcException.class,
                        e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.PREREQUISITE))
                .hasMessageContaining("commits XA transaction " + xid + " at ")
                .hasMessageContaining("before this stream began reading at " + start)
                .hasMessageContaining("with changes of " + db.name() + "." + table)
                .hasMessageContaining("Restart the source without its state");
    }

    /** The events of the binlog's last two files up to the commit of {@code xid}, in the last. */
    private static long eventsBeforeCommit(MySqlDatabase db, String xid) throws Exception {
        try (var c = db.admin(); var s = c.createStatement()) {
            List<String> files = BinlogRetention.binlogFiles(c);
            long events = 0;
            for (String file : files.subList(files.size() - 2, files.size())) {
                List<Long> positions = new java.util.ArrayList<>();
                long commit = Long.MAX_VALUE;
                try (var rs = s.executeQuery("SHOW BINLOG EVENTS IN '" + file + "'")) {
                    while (rs.next()) {
                        positions.add(rs.getLong("Pos"));
                        if (commit == Long.MAX_VALUE && rs.getString("Event_type").equalsIgnoreCase("query")
                                && XaPrepares.xid(rs.getString("Info")).contains("XACOMMIT" + XaPrepares.xid(xid))) {
                            commit = rs.getLong("Pos");
                        }
                    }
                }
                long before = commit;
                events += positions.stream().filter(p -> p < before).count();
            }
            return events;
        }
    }

    private static void prepareXa(MySqlDatabase db, String xid, String change, @javax.annotation.Nullable String setting)
            throws Exception {
        try (var c = db.admin(); var s = c.createStatement()) {
            if (setting != null) {
                s.execute(setting);
            }
            s.execute("USE " + db.name());
            MySqlWriters.prepareXa(s, xid, change);
        }
    }

    /** The XID {@code gtrid} (format 1, no branch qualifier) as servers write it. */
    private static String hexXid(String gtrid) {
        StringBuilder sb = new StringBuilder("X'");
        for (byte b : gtrid.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            sb.append(String.format("%02x", b));
        }
        return sb.append("',X'',1").toString();
    }

    @Test
    void anXaTransactionTooLargeToHoldFailsNamingTheLimit(MySqlDatabase db) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeFalse(db.server().isMariaDb(), "MariaDB's GTID says it is a prepare");
        db.execute("CREATE TABLE xa_big (id INT PRIMARY KEY)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = prepare(connector, db, "xa_big");
        int limit = BinlogCursor.maxHeldXaChanges;
        BinlogCursor.maxHeldXaChanges = 3;
        try {
            db.execute("XA START 'three'", "INSERT INTO xa_big VALUES (1), (2), (3)", "XA END 'three'",
                    "XA COMMIT 'three' ONE PHASE", "XA START 'four'", "INSERT INTO xa_big VALUES (4), (5), (6), (7)",
                    "XA END 'four'", "XA COMMIT 'four' ONE PHASE");
            try (ChangeStream<MySqlPosition> stream = connector.openStream(start, TableFilter.all())) {
                assertThat(events(stream, 3)).extracting(MySqlStreamITCase::describe)
                        .containsExactly("insert null -> 1", "insert null -> 2", "insert null -> 3");
                assertThatThrownBy(() -> events(stream, 1))
                        .isInstanceOfSatisfying(CdcException.class,
                                e -> assertThat(e.kind()).isEqualTo(CdcException.Kind.PREREQUISITE))
                        .hasMessageContaining("with more than 3 changes of captured tables (the first of " + db.name()
                                + ".xa_big)");
            }
        } finally {
            BinlogCursor.maxHeldXaChanges = limit;
        }
    }

    private static MySqlPosition prepare(MySqlConnector connector, MySqlDatabase db, String table) {
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            return session.prepareStream(List.of(TableId.of(db.name(), db.name(), table)), false);
        }
    }

    private static String describe(ChangeEvent e) {
        return e.op().wireName() + " " + row(e.before()) + " -> " + row(e.after());
    }

    private static String row(io.rustcdc.flink.source.model.Row row) {
        if (row == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < row.size(); i++) {
            sb.append(i == 0 ? "" : "|").append(row.get(i));
        }
        return sb.toString();
    }
}
