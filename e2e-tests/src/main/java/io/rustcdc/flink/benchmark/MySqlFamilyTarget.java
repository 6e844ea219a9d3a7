package io.rustcdc.flink.benchmark;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.DeleteRowsEventData;
import com.github.shyiko.mysql.binlog.event.EventData;
import com.github.shyiko.mysql.binlog.event.UpdateRowsEventData;
import com.github.shyiko.mysql.binlog.event.WriteRowsEventData;
import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * MariaDB or Oracle MySQL, started as the MySQL module's tests start them ({@link MySqlServer}): the
 * same tables as for PostgreSQL (BIGINT key, INT, DECIMAL(12,4), TEXT of varying length, TIMESTAMP(6),
 * nullable JSON); a streaming run starts at the binlog position taken for it; each run has server ids
 * of its own.
 */
final class MySqlFamilyTarget implements BenchmarkTarget {
    static final String COLUMNS = "(id BIGINT PRIMARY KEY, qty INT NOT NULL, b INT, price DECIMAL(12,4) NOT NULL, "
            + "note TEXT, created_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), attrs JSON)";
    /** Notes of 20 to 200 characters; half the JSON values null. */
    private static final String ROW = "seq, seq % 1000, seq % 7919, (seq % 100000) + 0.1234, "
            + "RPAD(CONCAT('note ', seq), 20 + (seq % 181), 'x'), TIMESTAMP'2026-01-01 00:00:00' - INTERVAL seq SECOND, "
            + "IF(seq % 2 = 0, NULL, JSON_OBJECT('k', seq, 'tag', CONCAT('t', seq % 10)))";

    private final boolean mariaDb;
    private final MySqlServer server;
    private final MySqlDatabase db;
    private final Map<String, String> positions = new HashMap<>();
    private final AtomicLong serverIds = new AtomicLong(8000);

    private MySqlFamilyTarget(boolean mariaDb, MySqlServer server) {
        this.mariaDb = mariaDb;
        this.server = server;
        this.db = server.createDatabase("bench");
    }

    /** The embedded MariaDB of the MySQL module's tests. */
    static MySqlFamilyTarget mariaDb() {
        return new MySqlFamilyTarget(true, MySqlServer.shared());
    }

    /** Oracle MySQL from the Debian root of the MySQL module's tests, started for this JVM and stopped with it. */
    static MySqlFamilyTarget oracleMySql() {
        return new MySqlFamilyTarget(false, MySqlServer.startPrivate("mysql", List.of()));
    }

    @Override
    public String server() {
        return (mariaDb ? "MariaDB " : "Oracle MySQL ") + db.queryValue("SELECT @@version");
    }

    @Override
    public String peerAndLimits() {
        return "Peer: Apache Flink CDC 3.5.0 mysql-cdc (incremental snapshot, its SQL jar with MySQL Connector/J 8.4.0) "
                + "on Flink 1.20.3. Limit: MariaDB Connector/J streaming SELECT * as text / mysql-binlog-connector-java "
                + "reading the binlog with its own row decoding.";
    }

    @Override
    public String peerMain() {
        return "io.rustcdc.benchmark.peer.mysql.PeerMySqlBenchmark";
    }

    @Override
    public String peerClasspath() {
        return PostgresTarget.classpath("benchmark.peer-mysql.classpath");
    }

    @Override
    public List<String> connection() {
        return List.of("--connector", mariaDb ? "mariadb" : "mysql", "--host", db.host(), "--port", String.valueOf(db.port()),
                "--database", db.name(), "--user", db.cdcUser(), "--password", db.cdcPassword());
    }

    @Override
    public void create(long rows, BenchKey key) throws SQLException {
        String bench = key == BenchKey.BIGINT ? "CREATE TABLE bench " + COLUMNS
                : "CREATE TABLE bench " + COLUMNS.replace("id BIGINT PRIMARY KEY", "id BIGINT NOT NULL")
                        .replace("attrs JSON)", "attrs JSON, code VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin "
                                + "NOT NULL, PRIMARY KEY (" + key.keyColumns() + "))");
        // the MD5 hex, as on PostgreSQL; SHA2 where the server has no MD5 (Debian's Oracle MySQL), cut to its length
        String row = key == BenchKey.BIGINT ? ROW : ROW + (mariaDb ? ", MD5(seq)" : ", LEFT(SHA2(seq, 256), 32)");
        db.execute("SET SESSION time_zone = '+00:00'", recursionLimit(), bench, "CREATE TABLE churn " + COLUMNS,
                "CREATE TABLE lat " + COLUMNS, "INSERT INTO bench SELECT " + row + " FROM " + numbers(1, rows),
                "ANALYZE TABLE bench",
                // the latency runs write their rows as the source's user, as on PostgreSQL (where it owns the tables)
                "GRANT INSERT ON `" + db.name() + "`.`lat` TO '" + db.cdcUser() + "'@'%'");
        // the CDC user's first sign-in: Oracle MySQL's caching_sha2_password caches it for the clients without TLS
        db.connect().close();
    }

    /**
     * The numbers {@code from} to {@code to} as rows of a column {@code seq}: MariaDB's sequence engine,
     * a recursive common table expression on Oracle MySQL (which has no sequence engine).
     */
    private String numbers(long from, long to) {
        return mariaDb ? "seq_" + from + "_to_" + to
                : "(WITH RECURSIVE s (seq) AS (SELECT CAST(" + from + " AS UNSIGNED) UNION ALL SELECT seq + 1 FROM s "
                        + "WHERE seq < " + to + ") SELECT seq FROM s) AS numbers";
    }

    /** Lets Oracle MySQL's recursive {@link #numbers} count that far (1000 by default); nothing on MariaDB. */
    private String recursionLimit() {
        return mariaDb ? "DO 0" : "SET SESSION cte_max_recursion_depth = 4294967295";
    }

    @Override
    public List<String> snapshot(String run) {
        return List.of("--table", "bench", "--server-id", String.valueOf(serverIds.addAndGet(10)));
    }

    @Override
    public List<String> streamFromNow(String table, String run) {
        List<String> status = db.binlogStatus();
        String position = status.get(0) + ":" + status.get(1);
        positions.put(run, position);
        return List.of("--table", table, "--position", position, "--server-id", String.valueOf(serverIds.addAndGet(10)));
    }

    @Override
    public void release(String run) {
        positions.remove(run);
    }

    /** Half inserts, then updates, then deletes, in transactions of 1, 10, 100, 1000 and 10000 rows in turn. */
    @Override
    public void commitBacklog(long changes) throws Exception {
        long inserts = changes / 2;
        long updates = changes * 3 / 10;
        long deletes = changes - inserts - updates;
        try (Connection c = db.admin();
                Statement s = c.createStatement()) {
            s.execute("SET SESSION time_zone = '+00:00'");
            s.execute(recursionLimit());
            c.setAutoCommit(false);
            long base = Long.parseLong(db.queryValue("SELECT COALESCE(MAX(id), 0) FROM churn"));
            BenchmarkDatabase.inTransactions(c, s, inserts, (from, to) -> "INSERT INTO churn SELECT " + ROW
                    + " FROM " + numbers(base + from, base + to));
            BenchmarkDatabase.inTransactions(c, s, updates, (from, to) -> "UPDATE churn SET qty = qty + 1, "
                    + "note = CONCAT(note, 'u') WHERE id BETWEEN " + (base + from) + " AND " + (base + to));
            BenchmarkDatabase.inTransactions(c, s, deletes, (from, to) -> "DELETE FROM churn WHERE id BETWEEN "
                    + (base + inserts - to + 1) + " AND " + (base + inserts - from + 1));
        }
    }

    @Override
    public double snapshotLimit() throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
            s.setFetchSize(1000);
            long start = System.nanoTime();
            long rows = 0;
            try (ResultSet rs = s.executeQuery("SELECT * FROM bench")) {
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    for (int i = 1; i <= columns; i++) {
                        rs.getString(i); // the text protocol's own text, nothing decoded further
                    }
                    rows++;
                }
            }
            return rows / ((System.nanoTime() - start) / 1e9);
        }
    }

    @Override
    public StreamLimit streamLimit(String run, long changes) throws Exception {
        String position = positions.remove(run);
        int colon = position.lastIndexOf(':');
        BinaryLogClient client = new BinaryLogClient(db.host(), db.port(), db.cdcUser(), db.cdcPassword());
        client.setServerId(serverIds.addAndGet(10));
        client.setBinlogFilename(position.substring(0, colon));
        client.setBinlogPosition(Long.parseLong(position.substring(colon + 1)));
        client.setSSLMode(com.github.shyiko.mysql.binlog.network.SSLMode.DISABLED);
        AtomicLong seen = new AtomicLong();
        AtomicLong first = new AtomicLong();
        AtomicLong end = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        client.registerEventListener(event -> {
            EventData data = event.getData();
            long rows = data instanceof WriteRowsEventData ? ((WriteRowsEventData) data).getRows().size()
                    : data instanceof UpdateRowsEventData ? ((UpdateRowsEventData) data).getRows().size()
                    : data instanceof DeleteRowsEventData ? ((DeleteRowsEventData) data).getRows().size() : 0;
            if (rows > 0 && seen.get() == 0) {
                first.set(System.nanoTime());
            }
            if (seen.addAndGet(rows) >= changes && done.getCount() > 0) {
                end.set(System.nanoTime());
                done.countDown();
            }
        });
        long start = System.nanoTime();
        client.connect(30_000);
        try {
            if (!done.await(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("The raw binlog read saw " + seen.get() + " of " + changes + " changes");
            }
            return new StreamLimit(seen.get(), (end.get() - start) / 1e9, (first.get() - start) / 1e9);
        } finally {
            client.disconnect();
        }
    }
}
