package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlServer;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.testing.StreamTestSupport;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Binlogs purged before the source read them, for real: the check on resume names what was lost
 * (file/offset on both flavors, MariaDB GTID domains, Oracle MySQL GTID sets). Purging needs a
 * server of the test's own.
 */
@ExtendWith(MySqlExtension.class)
@Timeout(180)
class BinlogRetentionITCase {

    @Test
    void aPositionInAPurgedFileIsLostAndSaysSo() throws Exception {
        assumeFalse(MySqlServer.external(), "purges binlogs: only on a server of the test's own");
        MySqlDatabase db = MySqlServer.startPrivate().createDatabase("purged_file");
        db.execute("CREATE TABLE t (id INT PRIMARY KEY)", "INSERT INTO t VALUES (1)");
        String[] position = masterStatus(db);
        try (Connection c = db.connect()) {
            assertThatCode(() -> BinlogRetention.requireFile(c, "the server", position[0], Long.parseLong(position[1])))
                    .doesNotThrowAnyException();
            db.execute("FLUSH BINARY LOGS", "INSERT INTO t VALUES (2)", "FLUSH BINARY LOGS");
            String newest = purgeAllButNewest(db);
            assertThatThrownBy(() -> BinlogRetention.requireFile(c, "the server", position[0], Long.parseLong(position[1])))
                    .isInstanceOfSatisfying(CdcException.class, e -> org.assertj.core.api.Assertions.assertThat(e.kind())
                            .isEqualTo(CdcException.Kind.POSITION_LOST))
                    .hasMessageContaining("Binlog file " + position[0] + " (position " + position[0] + ":" + position[1]
                            + ") is no longer on the server; the oldest it keeps is " + newest)
                    .hasMessageContaining("restart the source without its state");
        }
    }

    @Test
    void mariadbGtidsPurgedBeforeTheyWereReadAreNamedPerDomain() throws Exception {
        assumeFalse(MySqlServer.external(), "purges binlogs: only on a server of the test's own");
        assumeTrue(MySqlServer.shared().isMariaDb(), "GTID domains are MariaDB's");
        MySqlDatabase db = MySqlServer.startPrivate().createDatabase("purged_gtids");
        db.execute("CREATE TABLE t (id INT PRIMARY KEY)", "INSERT INTO t VALUES (1)");
        MariaDbGtidPosition read = MariaDbGtidPosition.parse(db.queryValue("SELECT @@gtid_binlog_pos"));
        db.execute("INSERT INTO t VALUES (2)", "INSERT INTO t VALUES (3)");
        try (Connection admin = db.admin();
                Statement s = admin.createStatement()) {
            s.execute("SET SESSION gtid_domain_id = 5");
            s.execute("INSERT INTO " + db.name() + ".t VALUES (50)");
        }
        MariaDbGtidPosition latest = MariaDbGtidPosition.parse(db.queryValue("SELECT @@gtid_binlog_pos"));
        db.execute("FLUSH BINARY LOGS");
        purgeAllButNewest(db);
        try (Connection c = db.connect()) {
            assertThatCode(() -> BinlogRetention.requireMariaDbGtids(c, latest)).doesNotThrowAnyException();
            String domain0 = latest.gtidOf(0);
            assertThatThrownBy(() -> BinlogRetention.requireMariaDbGtids(c, read))
                    .isInstanceOfSatisfying(CdcException.class, e -> org.assertj.core.api.Assertions.assertThat(e.kind())
                            .isEqualTo(CdcException.Kind.POSITION_LOST))
                    .hasMessageContaining("domain 0 after " + read.gtidOf(0) + " up to " + domain0)
                    .hasMessageContaining("domain 5 up to " + latest.gtidOf(5) + " (the position has no GTID of this domain)")
                    .hasMessageContaining("The source's position is " + read);
        }
    }

    /**
     * Oracle MySQL: a position whose GTID set lacks purged transactions fails on resume, naming them
     * ({@code GTID_SUBTRACT(@@gtid_purged, position)}); one taken after the purge resumes.
     */
    @Test
    void mysqlGtidsPurgedBeforeTheyWereReadAreNamed() throws Exception {
        assumeFalse(MySqlServer.external(), "purges binlogs: only on a server of the test's own");
        assumeTrue(!MySqlServer.shared().isMariaDb(), "GTID sets and gtid_purged are Oracle MySQL's");
        MySqlDatabase db = MySqlServer.startPrivate().createDatabase("purged_sets");
        db.execute("CREATE TABLE t (id INT PRIMARY KEY)", "INSERT INTO t VALUES (1)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition read = current(connector);
        db.execute("INSERT INTO t VALUES (2)", "INSERT INTO t VALUES (3)", "FLUSH BINARY LOGS");
        purgeAllButNewest(db);
        String lost = db.queryValue("SELECT GTID_SUBTRACT(@@GLOBAL.gtid_purged, '" + read.gtidText() + "')");
        assertThat(MySqlGtidSet.parse(lost).isEmpty()).as("the purge removed transactions after the position").isFalse();
        assertThatThrownBy(() -> connector.openStream(read, TableFilter.all()).close())
                .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind())
                        .isEqualTo(CdcException.Kind.POSITION_LOST))
                .hasMessageContaining("The server purged transactions this source never read: "
                        + MySqlGtidSet.parse(lost))
                .hasMessageContaining("the source's position is " + read.mysqlGtids())
                .hasMessageContaining("restart the source without its state");
        MySqlPosition after = current(connector);
        db.execute("INSERT INTO t VALUES (4)");
        try (ChangeStream<MySqlPosition> stream = connector.openStream(after, TableFilter.all())) {
            assertThat(StreamTestSupport.events(stream, 1).get(0).after().get("id")).isEqualTo(4L);
        }
    }

    /**
     * An XA transaction prepared in a binlog file purged since, and committed after the stream's start: whether it
     * changed a captured table cannot be told, so the stream fails instead of going on without its rows.
     */
    @Test
    void anXaTransactionPreparedInAPurgedFileAndCommittedAfterTheStartFailsTheStream() throws Exception {
        assumeFalse(MySqlServer.external(), "purges binlogs: only on a server of the test's own");
        MySqlDatabase db = MySqlServer.startPrivate().createDatabase("purged_xa");
        db.execute("CREATE TABLE t (id INT PRIMARY KEY)");
        try (Connection c = db.admin();
                Statement s = c.createStatement()) {
            MySqlWriters.prepareXa(s, "purged_xa", "INSERT INTO " + db.name() + ".t VALUES (1)");
        }
        db.execute("FLUSH BINARY LOGS");
        purgeAllButNewest(db);
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        MySqlPosition start = current(connector);
        db.execute("XA COMMIT 'purged_xa'", "INSERT INTO t VALUES (2)");
        try (ChangeStream<MySqlPosition> stream = connector.openStream(start, TableFilter.all())) {
            assertThatThrownBy(() -> StreamTestSupport.events(stream, 1))
                    .isInstanceOfSatisfying(CdcException.class, e -> assertThat(e.kind())
                            .isEqualTo(CdcException.Kind.PREREQUISITE))
                    .hasMessageContaining("commits XA transaction X'7075726765645F7861',X'',1 at ")
                    .hasMessageContaining("in no binlog file the server holds now")
                    .hasMessageContaining("Restart the source without its state");
        }
    }

    private static MySqlPosition current(MySqlConnector connector) {
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            return session.currentPosition();
        }
    }

    /**
     * Purges every binlog file but the newest. MariaDB keeps a file until its binlog checkpoint
     * (InnoDB having flushed the file's transactions) has passed it, so this retries for a while.
     */
    private static String purgeAllButNewest(MySqlDatabase db) throws Exception {
        String newest = masterStatus(db)[0];
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (db.query("SHOW BINARY LOGS").size() > 1) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("MariaDB kept its old binlog files: " + db.query("SHOW BINARY LOGS"));
            }
            db.execute("FLUSH ENGINE LOGS", "PURGE BINARY LOGS TO '" + newest + "'");
            Thread.sleep(200);
        }
        return newest;
    }

    private static String[] masterStatus(MySqlDatabase db) throws Exception {
        try (Connection c = db.admin();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW BINARY LOGS")) {
            String file = null;
            long size = 0;
            while (rs.next()) {
                file = rs.getString(1);
                size = rs.getLong(2);
            }
            return new String[] {file, String.valueOf(size)};
        }
    }
}
