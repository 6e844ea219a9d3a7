package io.rustcdc.flink.benchmark;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The benchmark's tables, all of one realistic shape (bigint key, integer, numeric(12,4), text of
 * varying length, timestamptz, nullable jsonb; {@code bench} with a text {@code code} more when
 * its key is text, {@link BenchKey}): {@code bench} to snapshot, {@code churn} for the
 * change backlog (REPLICA IDENTITY FULL, so updates and deletes carry whole old rows), {@code lat}
 * for latency; one publication for each. All three are REPLICA IDENTITY FULL, which the SQL path's
 * tables in changelog mode {@code all} require.
 */
final class BenchmarkDatabase {
    static final String COLUMNS = "(id bigint PRIMARY KEY, qty int NOT NULL, b int, price numeric(12,4) NOT NULL, "
            + "note text, created_at timestamptz NOT NULL, attrs jsonb)";
    /** Notes of 20 to 200 characters; half the jsonb values null. */
    private static final String ROW = "g, g % 1000, g % 7919, (g % 100000) + 0.1234, "
            + "rpad('note ' || g, 20 + (g % 181)::int, 'x'), "
            + "timestamptz '2026-01-01 00:00:00+00' - (g || ' seconds')::interval, "
            + "CASE WHEN g % 2 = 0 THEN NULL ELSE jsonb_build_object('k', g, 'tag', 't' || (g % 10)) END";

    private final PostgresDatabase db;

    BenchmarkDatabase(PostgresDatabase db) {
        this.db = db;
    }

    PostgresDatabase db() {
        return db;
    }

    void create(long rows, BenchKey key) {
        String bench = key == BenchKey.BIGINT ? "CREATE TABLE bench " + COLUMNS
                : "CREATE TABLE bench " + COLUMNS.replace("id bigint PRIMARY KEY", "id bigint NOT NULL")
                        .replace("attrs jsonb)", "attrs jsonb, code text COLLATE \"C\" NOT NULL)");
        String row = key == BenchKey.BIGINT ? ROW : ROW + ", md5(g::text)";
        db.execute(bench, "CREATE TABLE churn " + COLUMNS, "CREATE TABLE lat " + COLUMNS,
                "INSERT INTO bench SELECT " + row + " FROM generate_series(1, " + rows + ") g",
                // built after the rows, sorted once, rather than row by row
                key == BenchKey.BIGINT ? "SELECT 1" : "ALTER TABLE bench ADD PRIMARY KEY (" + key.keyColumns() + ")",
                "ANALYZE bench",
                "ALTER TABLE bench OWNER TO " + db.replicationUser(),
                "ALTER TABLE churn OWNER TO " + db.replicationUser(),
                "ALTER TABLE lat OWNER TO " + db.replicationUser(),
                "ALTER TABLE churn REPLICA IDENTITY FULL",
                // what the SQL path's tables (changelog-mode all, on both sides) check for; bench is only
                // snapshotted and lat only gets inserts, whose WAL this does not change
                "ALTER TABLE bench REPLICA IDENTITY FULL",
                "ALTER TABLE lat REPLICA IDENTITY FULL",
                "CREATE PUBLICATION bench_pub FOR TABLE bench",
                "CREATE PUBLICATION churn_pub FOR TABLE churn",
                "CREATE PUBLICATION lat_pub FOR TABLE lat",
                "CHECKPOINT");
    }

    void createSlot(String slot) {
        db.execute("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
    }

    /**
     * Drops {@code slot} once its run is over. A {@code sql-peek} run's last call can go on decoding on the server
     * after the run's JVM is gone, holding the slot (the drop then failed with "replication slot is active"):
     * the backend that holds it is ended first.
     */
    void dropSlot(String slot) {
        String ofSlot = " FROM pg_replication_slots WHERE slot_name = '" + slot + "'";
        db.execute("SELECT pg_terminate_backend(active_pid)" + ofSlot + " AND active_pid IS NOT NULL");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!"0".equals(db.queryValue("SELECT count(*)" + ofSlot + " AND active"))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Slot " + slot + " is still active 60 s after its run ended");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
        db.execute("SELECT pg_drop_replication_slot(slot_name)" + ofSlot);
    }

    /**
     * Commits exactly {@code changes} row changes to {@code churn}: half inserts, then updates, then
     * deletes, in transactions of 1, 10, 100, 1000 and 10000 rows in turn.
     */
    void commitBacklog(long changes) throws SQLException {
        long inserts = changes / 2;
        long updates = changes * 3 / 10;
        long deletes = changes - inserts - updates;
        try (Connection c = db.admin();
                Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            long base = Long.parseLong(db.queryValue("SELECT coalesce(max(id), 0) FROM churn"));
            inTransactions(c, s, inserts, (from, to) -> "INSERT INTO churn SELECT " + ROW
                    + " FROM generate_series(" + (base + from) + ", " + (base + to) + ") g");
            inTransactions(c, s, updates, (from, to) -> "UPDATE churn SET qty = qty + 1, note = note || 'u' "
                    + "WHERE id BETWEEN " + (base + from) + " AND " + (base + to));
            inTransactions(c, s, deletes, (from, to) -> "DELETE FROM churn WHERE id BETWEEN " + (base + inserts - to + 1)
                    + " AND " + (base + inserts - from + 1));
        }
    }

    interface RangeStatement {
        String sql(long from, long to);
    }

    static void inTransactions(Connection c, Statement s, long rows, RangeStatement statement) throws SQLException {
        int[] sizes = {1, 10, 100, 1000, 10_000};
        long done = 0;
        for (int i = 0; done < rows; i++) {
            long size = Math.min(sizes[i % sizes.length], rows - done);
            int changed = s.executeUpdate(statement.sql(done + 1, done + size));
            if (changed != size) {
                throw new IllegalStateException("Expected " + size + " rows changed, got " + changed);
            }
            c.commit();
            done += size;
        }
    }
}
