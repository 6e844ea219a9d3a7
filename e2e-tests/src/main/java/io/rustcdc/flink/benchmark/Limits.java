package io.rustcdc.flink.benchmark;

import io.rustcdc.flink.postgres.testing.PostgresDatabase;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.copy.CopyManager;
import org.postgresql.replication.PGReplicationStream;

/**
 * The physical limits on this machine, read through PgJDBC with nothing decoded: PostgreSQL's own
 * {@code COPY (SELECT ...) TO STDOUT} into a discarding stream, and a logical replication slot read
 * raw with pgoutput.
 */
final class Limits {
    private Limits() {}

    /** Rows per second of COPY (SELECT * FROM table) TO STDOUT, as text, discarded. */
    static double copy(PostgresDatabase db, String table) throws SQLException, java.io.IOException {
        try (Connection c = connect(db, false)) {
            CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
            long start = System.nanoTime();
            long rows = copy.copyOut("COPY (SELECT * FROM " + table + ") TO STDOUT", OutputStream.nullOutputStream());
            return rows / ((System.nanoTime() - start) / 1e9);
        }
    }

    /**
     * A raw read of {@code slot} with pgoutput until {@code events} insert, update and delete messages have
     * arrived, timed from the stream's start to the last and to the first.
     */
    static BenchmarkTarget.StreamLimit replication(PostgresDatabase db, String slot, String publication, long events)
            throws Exception {
        try (Connection c = connect(db, true)) {
            long start = System.nanoTime();
            PGReplicationStream stream = c.unwrap(PGConnection.class).getReplicationAPI().replicationStream().logical()
                    .withSlotName(slot)
                    .withSlotOption("proto_version", "1")
                    .withSlotOption("publication_names", publication)
                    .withStatusInterval(10, TimeUnit.SECONDS)
                    .start();
            long seen = 0;
            long first = 0;
            while (seen < events) {
                ByteBuffer message = stream.read();
                byte type = message.get(message.position());
                if (type == 'I' || type == 'U' || type == 'D') {
                    if (seen++ == 0) {
                        first = System.nanoTime();
                    }
                }
            }
            long end = System.nanoTime();
            stream.close();
            return new BenchmarkTarget.StreamLimit(seen, (end - start) / 1e9, (first - start) / 1e9);
        }
    }

    private static Connection connect(PostgresDatabase db, boolean replication) throws SQLException {
        Properties props = new Properties();
        PGProperty.USER.set(props, db.replicationUser());
        PGProperty.PASSWORD.set(props, db.replicationPassword());
        PGProperty.SSL_MODE.set(props, "disable");
        if (replication) {
            PGProperty.REPLICATION.set(props, "database");
            PGProperty.ASSUME_MIN_SERVER_VERSION.set(props, "10");
            PGProperty.PREFER_QUERY_MODE.set(props, "simple");
        }
        return DriverManager.getConnection(db.jdbcUrl(), props);
    }
}
