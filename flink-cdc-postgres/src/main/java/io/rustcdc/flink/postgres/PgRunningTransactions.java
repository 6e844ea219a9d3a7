package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.model.TableId;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits, when tables are prepared for streaming, for the transactions that were writing when they joined the
 * publication. pgoutput publishes a change by the publication as of its place in the WAL, so a transaction that
 * changed a table before it was added to the publication and commits after has only its later changes streamed,
 * while a snapshot taken before its commit holds none of it and leaves all of it to the stream: its earlier
 * changes would be lost. Once every transaction running now has ended, a snapshot holds them whole. (Creating a
 * slot waits so too; a slot that exists, and a table added to the publication later, need this.)
 */
final class PgRunningTransactions {
    private static final Logger LOG = LoggerFactory.getLogger(PgRunningTransactions.class);
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long WARN_NANOS = TimeUnit.SECONDS.toNanos(30);

    private PgRunningTransactions() {}

    /** Returns once the transactions with an xid running now (but the caller's) have committed or aborted. */
    static void awaitEnded(Connection c, PostgresSourceConfig config, List<TableId> tables) throws SQLException {
        List<String> running = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT x::text "
                + "FROM pg_catalog.pg_snapshot_xip(pg_catalog.pg_current_snapshot()) x "
                + "WHERE x IS DISTINCT FROM pg_catalog.pg_current_xact_id_if_assigned()")) {
            while (rs.next()) {
                running.add(rs.getString(1));
            }
        }
        long start = System.nanoTime();
        long warned = start;
        try (PreparedStatement s = c.prepareStatement("SELECT x FROM unnest(?::text[]) x "
                + "WHERE pg_catalog.pg_xact_status(x::xid8) = 'in progress'")) {
            while (!running.isEmpty()) {
                s.setArray(1, c.createArrayOf("text", running.toArray()));
                List<String> still = new ArrayList<>();
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        still.add(rs.getString(1));
                    }
                }
                running = still;
                if (running.isEmpty()) {
                    break;
                }
                if (System.nanoTime() - warned > WARN_NANOS) {
                    warned = System.nanoTime();
                    LOG.warn("Waiting {} s for transactions {} of database {} to end before {} can be snapshotted: they "
                            + "were running when the tables were prepared, and may have changed them before they joined "
                            + "publication '{}' (pgoutput leaves such changes out, so a snapshot must see them committed). "
                            + "A prepared transaction (pg_prepared_xacts) or a session idle in transaction "
                            + "(pg_stat_activity) holds this until it ends.", TimeUnit.NANOSECONDS.toSeconds(warned - start),
                            running, config.database(), tables.stream().map(TableId::qualifiedName)
                                    .collect(Collectors.joining(", ")), config.publicationName());
                }
                LockSupport.parkNanos(POLL_NANOS);
                if (Thread.currentThread().isInterrupted()) {
                    throw new SQLException("Interrupted while waiting for transactions " + running + " to end");
                }
            }
        }
    }
}
