package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlServer;
import io.rustcdc.flink.source.CdcException;
import java.sql.Connection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every server setting and grant the binlog reader needs, each wrong on a real server: the check
 * names the setting, the value found and the statement that fixes it.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(180)
class MySqlPrerequisitesITCase {

    @Test
    void aServerSetUpForCapturePasses(MySqlDatabase db) throws Exception {
        try (Connection c = db.connect()) {
            assertThatCode(() -> MySqlPrerequisites.check(c, flavor(db))).doesNotThrowAnyException();
        }
    }

    @Test
    void eachWrongBinlogSettingIsNamedWithItsValueAndItsFixAllAtOnce(MySqlDatabase db) throws Exception {
        db.execute("SET GLOBAL binlog_format = 'STATEMENT'", "SET GLOBAL binlog_row_image = 'MINIMAL'",
                "SET GLOBAL binlog_row_metadata = 'MINIMAL'");
        try (Connection c = db.connect()) {
            assertThatThrownBy(() -> MySqlPrerequisites.check(c, flavor(db)))
                    .isInstanceOfSatisfying(CdcException.class, e -> org.assertj.core.api.Assertions.assertThat(e.kind())
                            .isEqualTo(CdcException.Kind.PREREQUISITE))
                    .hasMessageContaining("binlog_format is 'STATEMENT' where ROW is required")
                    .hasMessageContaining("SET GLOBAL binlog_format = 'ROW';")
                    .hasMessageContaining("binlog_row_image is 'MINIMAL' where FULL is required")
                    .hasMessageContaining("SET GLOBAL binlog_row_image = 'FULL';")
                    .hasMessageContaining("binlog_row_metadata is 'MINIMAL' where FULL is required")
                    .hasMessageContaining("SET GLOBAL binlog_row_metadata = 'FULL';")
                    .hasMessageContaining("configuration file");
        } finally {
            db.execute("SET GLOBAL binlog_format = 'ROW'", "SET GLOBAL binlog_row_image = 'FULL'",
                    "SET GLOBAL binlog_row_metadata = 'FULL'");
        }
    }

    @Test
    void compressedBinlogsPassTheirEventsAreDecoded(MySqlDatabase db) throws Exception {
        String setting = db.server().isMariaDb() ? "log_bin_compress" : "binlog_transaction_compression";
        db.execute("SET GLOBAL " + setting + " = ON");
        try (Connection c = db.connect()) {
            assertThatCode(() -> MySqlPrerequisites.check(c, flavor(db))).doesNotThrowAnyException();
        } finally {
            db.execute("SET GLOBAL " + setting + " = OFF");
        }
    }

    @Test
    void jsonDiffsAreRefusedOnMySql(MySqlDatabase db) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeFalse(db.server().isMariaDb(), "binlog_row_value_options is Oracle MySQL's");
        db.execute("SET GLOBAL binlog_row_value_options = 'PARTIAL_JSON'", "SET GLOBAL binlog_transaction_compression = ON");
        try (Connection c = db.connect()) {
            assertThatThrownBy(() -> MySqlPrerequisites.check(c, flavor(db)))
                    .hasMessageContaining("binlog_row_value_options is 'PARTIAL_JSON'")
                    .hasMessageContaining("SET GLOBAL binlog_row_value_options = '';")
                    .hasMessageNotContaining("binlog_transaction_compression");
        } finally {
            db.execute("SET GLOBAL binlog_row_value_options = ''", "SET GLOBAL binlog_transaction_compression = OFF");
        }
    }

    @Test
    void aUserWithoutReplicationGrantsIsToldWhichGrantToAdd(MySqlDatabase db) throws Exception {
        db.execute("CREATE USER IF NOT EXISTS 'reader_only'@'%' IDENTIFIED BY 'reader-only-pw'",
                "GRANT SELECT ON *.* TO 'reader_only'@'%'");
        try (Connection c = db.server().connect(db.name(), "reader_only", "reader-only-pw")) {
            assertThatThrownBy(() -> MySqlPrerequisites.check(c, flavor(db)))
                    .hasMessageContaining("the user 'reader_only'@'%' lacks REPLICATION SLAVE and REPLICATION CLIENT")
                    .hasMessageContaining("GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'reader_only'@'%';")
                    .hasMessageNotContaining("reader-only-pw");
        } finally {
            db.execute("DROP USER IF EXISTS 'reader_only'@'%'");
        }
    }

    @Test
    void aTableTheUserMayNotReadIsRefusedForTheSnapshotWithTheGrant(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE secret_t (id INT PRIMARY KEY)", "CREATE TABLE open_t (id INT PRIMARY KEY)",
                "CREATE USER IF NOT EXISTS 'partial_reader'@'%' IDENTIFIED BY 'partial-reader-pw'",
                "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'partial_reader'@'%'",
                "GRANT SELECT ON " + db.name() + ".open_t TO 'partial_reader'@'%'");
        try {
            MySqlConnector connector = MySqlConnector.create(io.rustcdc.flink.mysql.testing.MySqlTestConfigs.builder(db)
                    .username("partial_reader").password(io.rustcdc.flink.source.Secret.of("partial-reader-pw")).build());
            io.rustcdc.flink.source.model.TableId open = io.rustcdc.flink.source.model.TableId.of(db.name(), db.name(), "open_t");
            io.rustcdc.flink.source.model.TableId hidden =
                    io.rustcdc.flink.source.model.TableId.of(db.name(), db.name(), "secret_t");
            try (var session = connector.openSession()) {
                assertThatCode(() -> session.checkSnapshotPrerequisites(java.util.List.of(open))).doesNotThrowAnyException();
                assertThatThrownBy(() -> session.checkSnapshotPrerequisites(java.util.List.of(open, hidden)))
                        .isInstanceOfSatisfying(CdcException.class, e -> org.assertj.core.api.Assertions.assertThat(e.kind())
                                .isEqualTo(CdcException.Kind.PREREQUISITE))
                        .hasMessageContaining("User 'partial_reader' cannot read " + db.name() + ".secret_t for the snapshot")
                        .hasMessageContaining("GRANT SELECT ON `" + db.name() + "`.`secret_t` TO 'partial_reader';")
                        .hasMessageNotContaining("partial-reader-pw");
            }
        } finally {
            db.execute("DROP USER IF EXISTS 'partial_reader'@'%'");
        }
    }

    /**
     * Oracle MySQL with binlog_order_commits = OFF adds GTIDs to gtid_executed out of binlog order, so a chunk's
     * backfill could keep a row's older image (found by an adversarial probe): refused before the snapshot and at
     * each chunk (the setting is dynamic), naming the setting and its fix.
     */
    @Test
    void unorderedCommitsAreRefusedForTheSnapshotOnOracleMySql(MySqlDatabase db) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeFalse(db.server().isMariaDb(), "binlog_order_commits is Oracle MySQL's");
        db.execute("CREATE TABLE ordered_t (id INT PRIMARY KEY)", "INSERT INTO ordered_t VALUES (1)");
        MySqlConnector connector = MySqlConnector.create(io.rustcdc.flink.mysql.testing.MySqlTestConfigs.config(db));
        io.rustcdc.flink.source.model.TableId t = io.rustcdc.flink.source.model.TableId.of(db.name(), db.name(), "ordered_t");
        try (var session = connector.openSession()) {
            assertThatCode(() -> session.checkSnapshotPrerequisites(java.util.List.of(t))).doesNotThrowAnyException();
            var table = session.describe(t);
            db.execute("SET GLOBAL binlog_order_commits = OFF");
            try {
                assertThatThrownBy(() -> session.checkSnapshotPrerequisites(java.util.List.of(t)))
                        .isInstanceOfSatisfying(CdcException.class, e -> org.assertj.core.api.Assertions.assertThat(e.kind())
                                .isEqualTo(CdcException.Kind.PREREQUISITE))
                        .hasMessageContaining("has binlog_order_commits = OFF")
                        .hasMessageContaining("SET PERSIST binlog_order_commits = ON");
                // switched off after the check: the chunk refuses too
                assertThatThrownBy(() -> session.readChunk(table, java.util.List.of("id"), null, null, e -> { }))
                        .isInstanceOfSatisfying(CdcException.class, e -> org.assertj.core.api.Assertions.assertThat(e.kind())
                                .isEqualTo(CdcException.Kind.PREREQUISITE))
                        .hasMessageContaining("has binlog_order_commits = OFF");
            } finally {
                db.execute("SET GLOBAL binlog_order_commits = ON");
            }
            java.util.List<Object> ids = new java.util.ArrayList<>();
            session.readChunk(table, java.util.List.of("id"), null, null, e -> ids.add(e.after().get("id")));
            org.assertj.core.api.Assertions.assertThat(ids).containsExactly(1L);
        }
    }

    @Test
    void aTableWithoutConsistentSnapshotsIsRefusedForTheSnapshotButStreams(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE heap_t (id INT PRIMARY KEY) ENGINE = MyISAM", "CREATE TABLE inno (id INT PRIMARY KEY)");
        MySqlConnector connector = MySqlConnector.create(io.rustcdc.flink.mysql.testing.MySqlTestConfigs.config(db));
        io.rustcdc.flink.source.model.TableId heap = io.rustcdc.flink.source.model.TableId.of(db.name(), db.name(), "heap_t");
        io.rustcdc.flink.source.model.TableId inno = io.rustcdc.flink.source.model.TableId.of(db.name(), db.name(), "inno");
        MySqlPosition start;
        try (var session = connector.openSession()) {
            assertThatCode(() -> session.checkSnapshotPrerequisites(java.util.List.of(inno))).doesNotThrowAnyException();
            assertThatThrownBy(() -> session.checkSnapshotPrerequisites(java.util.List.of(inno, heap)))
                    .isInstanceOfSatisfying(CdcException.class, e -> org.assertj.core.api.Assertions.assertThat(e.kind())
                            .isEqualTo(CdcException.Kind.PREREQUISITE))
                    .hasMessageContaining(db.name() + ".heap_t uses the MyISAM engine")
                    .hasMessageContaining("ENGINE = InnoDB").hasMessageContaining("'latest'");
            start = session.prepareStream(java.util.List.of(heap), false);
        }
        db.execute("INSERT INTO heap_t VALUES (1)");
        try (var stream = connector.openStream(start, io.rustcdc.flink.source.filter.TableFilter.all())) {
            org.assertj.core.api.Assertions.assertThat(io.rustcdc.flink.testing.StreamTestSupport.events(stream, 1)
                    .get(0).after().get("id")).isEqualTo(1L);
        }
    }

    @Test
    void tablesWhoseForeignKeysCascadeAreRefusedForTheStreamUnlessAccepted(MySqlDatabase db) throws Exception {
        db.execute("CREATE TABLE parent (id INT PRIMARY KEY)",
                "CREATE TABLE child (id INT PRIMARY KEY, p INT, CONSTRAINT child_parent FOREIGN KEY (p) "
                        + "REFERENCES parent (id) ON DELETE CASCADE ON UPDATE SET NULL)",
                "CREATE TABLE strict_child (id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES parent (id))");
        io.rustcdc.flink.source.model.TableId parent = io.rustcdc.flink.source.model.TableId.of(db.name(), db.name(), "parent");
        io.rustcdc.flink.source.model.TableId child = io.rustcdc.flink.source.model.TableId.of(db.name(), db.name(), "child");
        io.rustcdc.flink.source.model.TableId strict = io.rustcdc.flink.source.model.TableId.of(db.name(), db.name(),
                "strict_child");
        MySqlConnector refusing = MySqlConnector.create(io.rustcdc.flink.mysql.testing.MySqlTestConfigs.config(db));
        try (var session = refusing.openSession()) {
            // the parent's cascade changes the child, unlogged: only the child is at risk
            assertThatCode(() -> session.prepareStream(java.util.List.of(parent, strict), false)).doesNotThrowAnyException();
            assertThatThrownBy(() -> session.prepareStream(java.util.List.of(parent, child), false))
                    .isInstanceOfSatisfying(CdcException.class, e -> org.assertj.core.api.Assertions.assertThat(e.kind())
                            .isEqualTo(CdcException.Kind.PREREQUISITE))
                    .hasMessageContaining(db.name() + ".child (key child_parent to " + db.name()
                            + ".parent: ON DELETE CASCADE, ON UPDATE SET NULL)")
                    .hasMessageContaining("'foreign-key-cascades' = 'accept'");
        }
        MySqlConnector accepting = MySqlConnector.create(io.rustcdc.flink.mysql.testing.MySqlTestConfigs.builder(db)
                .foreignKeyCascades(ForeignKeyCascades.ACCEPT).build());
        MySqlPosition start;
        try (var session = accepting.openSession()) {
            start = session.prepareStream(java.util.List.of(parent, child), false);
        }
        // why: the cascade's delete of the child row happens below the binlog (InnoDB's own foreign keys);
        // Oracle MySQL 9.6+ handles foreign keys in the SQL layer by default (innodb_native_foreign_keys = OFF)
        // and logs the child's change as a row event of its own, before the parent's
        db.execute("INSERT INTO parent VALUES (1)", "INSERT INTO child VALUES (10, 1)", "DELETE FROM parent WHERE id = 1");
        org.assertj.core.api.Assertions.assertThat(db.queryValue("SELECT COUNT(*) FROM child")).isEqualTo("0");
        java.util.List<java.util.List<String>> nativeKeys = db.query("SHOW GLOBAL VARIABLES LIKE 'innodb_native_foreign_keys'");
        boolean cascadesLogged = !db.server().isMariaDb() && !nativeKeys.isEmpty()
                && "OFF".equalsIgnoreCase(nativeKeys.get(0).get(1));
        java.util.List<String> expected = cascadesLogged
                ? java.util.List.of("INSERT parent", "INSERT child", "DELETE child", "DELETE parent")
                : java.util.List.of("INSERT parent", "INSERT child", "DELETE parent");
        try (var stream = accepting.openStream(start, io.rustcdc.flink.source.filter.TableFilter.all())) {
            org.assertj.core.api.Assertions.assertThat(io.rustcdc.flink.testing.StreamTestSupport.events(stream,
                            expected.size()))
                    .extracting(e -> e.op() + " " + e.table().table())
                    .containsExactlyElementsOf(expected);
            io.rustcdc.flink.testing.StreamTestSupport.assertNoEvent(stream, java.time.Duration.ofSeconds(2));
        }
        // a captured table given a cascading key while the stream runs is refused when the stream reads the DDL
        start = prepareStream(refusing, strict);
        db.execute("ALTER TABLE strict_child ADD CONSTRAINT later FOREIGN KEY (p) REFERENCES parent (id) ON DELETE CASCADE");
        try (var stream = refusing.openStream(start, io.rustcdc.flink.source.filter.TableFilter.of(
                java.util.List.of(db.name() + ".strict_child"), java.util.List.of()))) {
            assertThatThrownBy(() -> io.rustcdc.flink.testing.StreamTestSupport.events(stream, 1))
                    .isInstanceOf(CdcException.class)
                    .hasMessageContaining(db.name() + ".strict_child (key later to " + db.name() + ".parent: ON DELETE CASCADE)");
        }
    }

    private static MySqlPosition prepareStream(MySqlConnector connector, io.rustcdc.flink.source.model.TableId table) {
        try (var session = connector.openSession()) {
            return session.prepareStream(java.util.List.of(table), false);
        }
    }

    @Test
    void aSourceConfiguredForTheOtherFlavorIsRefused(MySqlDatabase db) throws Exception {
        ServerFlavor other = flavor(db) == ServerFlavor.MARIADB ? ServerFlavor.MYSQL : ServerFlavor.MARIADB;
        try (Connection c = db.connect()) {
            assertThatThrownBy(() -> MySqlPrerequisites.check(c, other))
                    .hasMessageContaining("but the source is configured for " + other)
                    .hasMessageContaining("Use '" + flavor(db).connectorName() + "'");
        }
    }

    @Test
    void aServerWithoutBinaryLogIsRefused() throws Exception {
        if (MySqlServer.external()) {
            return; // needs a server of its own
        }
        MySqlServer server = MySqlServer.startPrivate("--skip-log-bin");
        MySqlDatabase db = server.createDatabase("no_binlog");
        try (Connection c = db.connect()) {
            assertThatThrownBy(() -> MySqlPrerequisites.check(c, flavor(db)))
                    .hasMessageContaining("log_bin is OFF")
                    .hasMessageContaining("--log-bin");
        }
    }

    @Test
    void tablesOfADatabaseTheServerDoesNotLogAreRefused() throws Exception {
        if (MySqlServer.external()) {
            return; // needs a server of its own
        }
        MySqlServer server = MySqlServer.startPrivate("--binlog-ignore-db=unlogged");
        try (Connection c = server.admin("");
                java.sql.Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE unlogged");
            s.execute("CREATE TABLE unlogged.t (id INT PRIMARY KEY)");
            s.execute("CREATE DATABASE logged");
            s.execute("CREATE TABLE logged.t (id INT PRIMARY KEY)");
        }
        MySqlConnector connector = MySqlConnector.create(
                io.rustcdc.flink.mysql.testing.MySqlTestConfigs.config(server.database("logged")));
        try (var session = connector.openSession()) {
            assertThatCode(() -> session.prepareStream(java.util.List.of(
                    io.rustcdc.flink.source.model.TableId.of("logged", "logged", "t")), false)).doesNotThrowAnyException();
            assertThatThrownBy(() -> session.prepareStream(java.util.List.of(
                    io.rustcdc.flink.source.model.TableId.of("logged", "logged", "t"),
                    io.rustcdc.flink.source.model.TableId.of("unlogged", "unlogged", "t")), false))
                    .isInstanceOf(CdcException.class)
                    .hasMessageContaining("does not write changes of unlogged.t to its binlog")
                    .hasMessageContaining("binlog-ignore-db=unlogged");
        }
    }

    private static ServerFlavor flavor(MySqlDatabase db) {
        return db.server().isMariaDb() ? ServerFlavor.MARIADB : ServerFlavor.MYSQL;
    }
}
