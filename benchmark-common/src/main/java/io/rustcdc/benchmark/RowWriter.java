package io.rustcdc.benchmark;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;

/** Inserts rows of the benchmark's table shape, in transactions of ten rows, at a fixed rate. */
final class RowWriter implements AutoCloseable {
    private final Connection connection;
    private final PreparedStatement insert;
    private long nextId;

    RowWriter(BenchmarkArgs args, long firstId) throws SQLException {
        connection = DriverManager.getConnection(args.jdbcUrl(), args.get("user"), args.get("password"));
        connection.setAutoCommit(false);
        insert = connection.prepareStatement("INSERT INTO " + args.get("table")
                + " (id, qty, b, price, note, created_at, attrs) VALUES "
                + (args.mysqlFamily() ? "(?, ?, ?, ?, ?, ?, ?)" : "(?, ?, ?, ?::numeric, ?, ?, ?::jsonb)"));
        nextId = firstId;
    }

    /** Writes one transaction of {@code rows} rows. */
    void transaction(int rows) throws SQLException {
        for (int i = 0; i < rows; i++) {
            long id = nextId++;
            insert.setLong(1, id);
            insert.setInt(2, (int) (id % 1000));
            insert.setInt(3, (int) (id % 7919));
            insert.setString(4, (id % 100_000) + ".1234");
            insert.setString(5, "latency row " + id);
            insert.setTimestamp(6, new Timestamp(System.currentTimeMillis()));
            insert.setString(7, id % 2 == 0 ? null : "{\"k\": " + id + "}");
            insert.addBatch();
        }
        insert.executeBatch();
        connection.commit();
    }

    /** Writes {@code rowsPerSecond} rows a second for {@code seconds}; returns how many. */
    long atRate(int rowsPerSecond, long seconds) throws SQLException, InterruptedException {
        int perTransaction = 10;
        long intervalNanos = 1_000_000_000L * perTransaction / rowsPerSecond;
        long start = System.nanoTime();
        long end = start + seconds * 1_000_000_000L;
        long written = 0;
        for (long next = start; next < end; next += intervalNanos) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
            transaction(perTransaction);
            written += perTransaction;
        }
        return written;
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
