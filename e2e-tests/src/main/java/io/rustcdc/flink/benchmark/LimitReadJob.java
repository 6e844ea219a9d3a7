package io.rustcdc.flink.benchmark;

import io.rustcdc.benchmark.BenchmarkArgs;
import io.rustcdc.flink.source.Secret;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.util.Collector;
import org.postgresql.PGConnection;

/**
 * Flink with the limit's own read ({@code --phase limit-read}): a job at parallelism 1 whose one task runs the
 * snapshot limit's statement (PostgreSQL's text {@code COPY} of the whole table, its rows counted by their line ends;
 * MariaDB's and Oracle MySQL's streaming {@code SELECT *}, no value read) on {@code --connections} threads of its
 * own, and for each row received emits a ready document of {@code --document-length} characters (the same String,
 * as Flink's pace does) into the run's sink. Nothing is decoded or rendered: less than any JSON source that reads
 * the table so must do. With {@code --read-format binary} the rows come in the database's binary format instead:
 * PostgreSQL's binary {@code COPY}, its rows counted by their framing; on MariaDB and Oracle MySQL the binary
 * protocol of a server-prepared statement.
 *
 * <p>With two connections each reads half of the table at once: on PostgreSQL by the pages of its heap (a TID range
 * scan each, so that neither reads more than its half), on MariaDB and Oracle MySQL by the primary key {@code id}
 * (InnoDB keeps the rows in its order), so that the database may work on both cores.
 */
final class LimitReadJob extends RichFlatMapFunction<Integer, String> {
    private static final long serialVersionUID = 1L;
    /** Rows a reader counts before it tells the task thread. */
    static final int BATCH = 256;

    private final String url;
    private final String user;
    private final Secret password;
    private final String table;
    private final boolean postgres;
    private final int connections;
    /** Whether the rows come in the database's binary format rather than as text ({@code --read-format}). */
    private final boolean binary;
    private final String document;

    LimitReadJob(BenchmarkArgs args, String document) {
        this.url = args.jdbcUrl();
        this.user = args.get("user");
        this.password = Secret.of(args.get("password"));
        this.table = args.get("table");
        this.postgres = !args.mysqlFamily();
        this.connections = args.getInt("connections");
        this.binary = "binary".equals(args.get("read-format"));
        this.document = document;
        if (connections != 1 && connections != 2) {
            throw new IllegalArgumentException("--connections " + connections + ": expected 1 or 2");
        }
        if (!binary && !"text".equals(args.get("read-format"))) {
            throw new IllegalArgumentException("--read-format " + args.get("read-format") + ": expected text or binary");
        }
    }

    @Override
    public void flatMap(Integer ignored, Collector<String> out) throws Exception {
        AtomicLong read = new AtomicLong();
        AtomicInteger finished = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<String> queries = queries();
        for (int i = 0; i < queries.size(); i++) {
            String query = queries.get(i);
            Thread reader = new Thread(() -> {
                try {
                    read(query, read);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    finished.incrementAndGet();
                }
            }, "rustcdc-limit-reader-" + (i + 1));
            reader.setDaemon(true);
            reader.start();
        }
        long emitted = 0;
        while (true) {
            boolean done = finished.get() == queries.size(); // before the count: a finished reader's rows are in it
            long available = read.get();
            for (; emitted < available; emitted++) {
                out.collect(document);
            }
            if (failure.get() != null) {
                throw new IllegalStateException("The limit's read in the job failed", failure.get());
            }
            if (done) {
                return;
            }
            LockSupport.parkNanos(20_000);
        }
    }

    /** The statements of the connections: the whole table, or each half of it. */
    private List<String> queries() throws SQLException {
        String copyTo = ") TO STDOUT" + (binary ? " (FORMAT binary)" : "");
        if (connections == 1) {
            return List.of(postgres ? "COPY (SELECT * FROM " + table + copyTo : "SELECT * FROM " + table);
        }
        List<String> halves = new ArrayList<>();
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            if (postgres) {
                long pages = single(s, "SELECT pg_relation_size('" + table + "') / current_setting('block_size')::bigint");
                String middle = "'(" + pages / 2 + ",0)'::tid";
                halves.add("COPY (SELECT * FROM " + table + " WHERE ctid < " + middle + copyTo);
                halves.add("COPY (SELECT * FROM " + table + " WHERE ctid >= " + middle + copyTo);
            } else {
                long low = single(s, "SELECT MIN(id) FROM " + table);
                long middle = low + (single(s, "SELECT MAX(id) FROM " + table) - low) / 2;
                halves.add("SELECT * FROM " + table + " WHERE id <= " + middle);
                halves.add("SELECT * FROM " + table + " WHERE id > " + middle);
            }
        }
        return halves;
    }

    private static long single(Statement s, String query) throws SQLException {
        try (ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void read(String query, AtomicLong read) throws Exception {
        try (Connection c = connect()) {
            if (postgres) {
                CopyRows rows = binary ? new CopyRows.Binary(read) : new CopyRows.Text(read);
                c.unwrap(PGConnection.class).getCopyAPI().copyOut(query, rows);
                rows.close();
                return;
            }
            // binary: a server-prepared statement (the connection's useServerPrepStmts); either way no value is read
            try (PreparedStatement s = c.prepareStatement(query, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
                s.setFetchSize(1000); // as the limit
                try (ResultSet rs = s.executeQuery()) {
                    long rows = 0;
                    while (rs.next()) {
                        if (++rows == BATCH) {
                            read.addAndGet(rows);
                            rows = 0;
                        }
                    }
                    read.addAndGet(rows);
                }
            }
        }
    }

    private Connection connect() throws SQLException {
        String binaryProtocol = postgres || !binary ? "" : (url.contains("?") ? "&" : "?") + "useServerPrepStmts=true";
        return DriverManager.getConnection(url + binaryProtocol, user, password.reveal());
    }
}
