package io.rustcdc.flink.mysql;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.testing.ConcurrentWriters;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Two tables, and writers that keep changing them while a source snapshots them: inserts beyond
 * the last chunk and into gaps, value updates, key updates across chunks, deletes.
 */
final class MySqlWriters {
    private MySqlWriters() {}

    /** Table {@code t1 (id int primary key, v varchar, n int)} and {@code t2 (a int, b int, v varchar, primary key (a, b))}. */
    static void createTables(MySqlDatabase db, int rows) {
        List<String> statements = new ArrayList<>(List.of("DROP TABLE IF EXISTS t1, t2",
                "CREATE TABLE t1 (id INT PRIMARY KEY, v VARCHAR(40), n INT)",
                "CREATE TABLE t2 (a INT, b INT, v VARCHAR(40), PRIMARY KEY (a, b))"));
        StringBuilder t1 = new StringBuilder("INSERT INTO t1 VALUES ");
        for (int g = 1; g <= rows; g++) {
            t1.append(g == 1 ? "" : ", ").append("(").append(g).append(", 'v").append(g).append("', ").append(g).append(")");
        }
        StringBuilder t2 = new StringBuilder("INSERT INTO t2 VALUES ");
        for (int g = 1; g <= rows / 3; g++) {
            t2.append(g == 1 ? "" : ", ").append("(").append(g % 10).append(", ").append(g).append(", 'w").append(g).append("')");
        }
        statements.add(t1.toString());
        statements.add(t2.toString());
        db.execute(statements.toArray(new String[0]));
    }

    static ConcurrentWriters start(MySqlDatabase db, int count, long millis, int idSpace) {
        return new ConcurrentWriters(db::admin, count, millis, r -> statement(r, idSpace));
    }

    /** {@link #start}, each writer pausing up to {@code maxPauseMillis} after each transaction. */
    static ConcurrentWriters start(MySqlDatabase db, int count, long millis, int idSpace, int maxPauseMillis) {
        return new ConcurrentWriters(db::admin, count, millis, maxPauseMillis, r -> statement(r, idSpace));
    }

    /**
     * Prepares XA transaction {@code xid} on {@code s} (format 1, no branch qualifier) with {@code changes}: the
     * server logs its rows now, its {@code XA COMMIT} or {@code XA ROLLBACK} none. Leave none prepared at a test's
     * end: its locks hold the database's drop.
     */
    static void prepareXa(Statement s, String xid, String... changes) throws SQLException {
        s.execute("XA START '" + xid + "'");
        for (String change : changes) {
            s.execute(change);
        }
        s.execute("XA END '" + xid + "'");
        s.execute("XA PREPARE '" + xid + "'");
    }

    /** {@link #start}, writer {@code w} drawing from {@code new Random(seed + w)}. */
    static ConcurrentWriters start(MySqlDatabase db, int count, long millis, int idSpace, int maxPauseMillis, long seed) {
        return new ConcurrentWriters(db::admin, count, millis, maxPauseMillis, seed, r -> statement(r, idSpace));
    }

    static String statement(Random r, int idSpace) {
        int id = 1 + r.nextInt(idSpace);
        switch (r.nextInt(8)) {
            case 0:
                return "INSERT IGNORE INTO t1 VALUES (" + (idSpace + r.nextInt(idSpace)) + ", 'new', 0)";
            case 1:
                return "INSERT IGNORE INTO t1 VALUES (" + id + ", 'gap', 1)";
            case 2:
            case 3:
                return "UPDATE t1 SET n = n + 1, v = LEFT(SHA2(RAND(), 256), 32) WHERE id = " + id;
            case 4:
                // a key change that moves the row into another chunk, up or down
                int to = r.nextBoolean() ? id + 1000 : Math.max(1, id - 1000);
                return "UPDATE IGNORE t1 SET id = " + to + " WHERE id = " + id;
            case 5:
                return "DELETE FROM t1 WHERE id = " + id;
            case 6:
                return "UPDATE IGNORE t2 SET v = LEFT(SHA2(RAND(), 256), 32), b = b + 100000 WHERE a = " + (id % 10)
                        + " AND b = " + id;
            default:
                return "INSERT IGNORE INTO t2 VALUES (" + (id % 10) + ", " + (idSpace + r.nextInt(idSpace)) + ", 'x')";
        }
    }
}
