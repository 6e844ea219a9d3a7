package io.rustcdc.flink.mysql;

import io.rustcdc.flink.source.CdcException;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.spi.StreamRecord;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Oracle MySQL: the GTIDs executed before a binlog position, exactly. MySQL has no function for it
 * (MariaDB's {@code BINLOG_GTID_POS}), and {@code @@GLOBAL.gtid_executed} read with the binlog's end
 * does not describe the same point: a transaction is written to the binlog before its GTID enters
 * {@code gtid_executed}, so the set read next to a position may lack transactions before it (a
 * resume by that set would send them again), and a set read after it may hold transactions after it.
 * A set read before the position holds only transactions before it; the binlog from that set to
 * the position (the server sends exactly the transactions not in it) adds the rest.
 */
final class ExecutedGtids {
    /** How long the binlog may stay silent before the read gives up (it is read without blocking). */
    private static final Duration SILENCE = Duration.ofSeconds(60);
    /** No table: only the positions, which carry the GTIDs, are of use. */
    private static final TableFilter NO_TABLE = TableFilter.of(List.of(), List.of("*"));

    private ExecutedGtids() {}

    /** Whether the server gives every transaction a GTID ({@code gtid_mode = ON}); the other modes may log some without. */
    static boolean on(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@GLOBAL.gtid_mode")) {
            return rs.next() && "ON".equalsIgnoreCase(rs.getString(1));
        }
    }

    static MySqlGtidSet now(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@GLOBAL.gtid_executed")) {
            rs.next();
            return MySqlGtidSet.parse(rs.getString(1));
        }
    }

    /**
     * {@code at} with the GTIDs executed before it, given {@code low}, a set read before {@code at}
     * was (so every transaction of it lies before {@code at}, as a GTID enters {@code gtid_executed}
     * only after its transaction is in the binlog).
     */
    static MySqlPosition before(MySqlSourceConfig config, Connection session, Map<Integer, String> charsets,
            MySqlGtidSet low, MySqlPosition at) {
        MySqlPosition from = MySqlPosition.at(at.file(), 4, low).on(at.server()); // by GTIDs: the server picks the file
        boolean byGtids = true;
        while (true) {
            MySqlPosition reached = from;
            try (MySqlChangeStream stream = MySqlChangeStream.backfill(config, NO_TABLE, from, byGtids, false, session,
                    charsets)) {
                long silentSince = System.nanoTime();
                while (true) {
                    StreamRecord<MySqlPosition> record = poll(stream, at);
                    if (record == null) {
                        if (stream.ended()) {
                            break;
                        }
                        if (System.nanoTime() - silentSince > SILENCE.toNanos()) {
                            throw new CdcException(CdcException.Kind.CONNECTION, "The binlog of " + config.hostname()
                                    + ":" + config.port() + " sent nothing for " + SILENCE.toSeconds() + " s while "
                                    + "the GTIDs executed before " + at + " were read from it (from " + from + ")");
                        }
                        continue;
                    }
                    silentSince = System.nanoTime();
                    MySqlPosition p = record.position();
                    boolean atTarget = p.file().equals(at.file()) && p.offset() == at.offset();
                    if (atTarget || p.movedTo(p.file(), p.offset()).compareTo(at) > 0) {
                        // at the position: its GTIDs; past it: those of the last boundary before it, as no
                        // transaction sent lies between that boundary and the position
                        MySqlGtidSet gtids = (atTarget ? p : reached).mysqlGtids();
                        return MySqlPosition.at(at.file(), at.offset(), gtids).on(at.server());
                    }
                    if (record.event() == null) {
                        reached = p;
                    }
                }
            }
            // The server ends a non-blocking read at what it has flushed, which may be short of the
            // position for a moment: go on from the last boundary, by file and offset (a transaction of
            // the set met again there adds nothing to it).
            from = reached;
            byGtids = false;
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CdcException(CdcException.Kind.CONNECTION, "Interrupted while reading the GTIDs executed "
                        + "before " + at + " from the binlog");
            }
        }
    }

    private static StreamRecord<MySqlPosition> poll(MySqlChangeStream stream, MySqlPosition at) {
        try {
            return stream.poll(Duration.ofMillis(200));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CdcException(CdcException.Kind.CONNECTION, "Interrupted while reading the GTIDs executed before "
                    + at + " from the binlog");
        }
    }
}
