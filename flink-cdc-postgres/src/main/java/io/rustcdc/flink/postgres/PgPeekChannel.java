package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.CdcException;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import javax.annotation.Nullable;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The slot's pgoutput messages read with plain SQL ({@code wal.transport} = {@code sql-peek}): each call
 * of {@code pg_logical_slot_peek_binary_changes} decodes the slot's WAL from its confirmed position again,
 * and returns whole transactions. The channel passes on what the decoder has not had, so that it sees
 * what a replication stream started at its position would send:
 *
 * <ul>
 *   <li>a transaction whose commit LSN (in its BEGIN) is before the decoder's position was delivered
 *       (by this stream, or before the position the stream started at) and is left out whole, as the
 *       walsender leaves out what commits before its start position;</li>
 *   <li>a logical message outside a transaction is left out when its LSN (its record's end) is not after
 *       that position;</li>
 *   <li>pgoutput sends a table's RELATION message once per call, before the table's first change in it,
 *       which may be in a transaction left out. The decoder has every relation of the transactions it
 *       had, so those are left out too; except before the first transaction this stream passes on, when
 *       it has none yet: the left-out transactions' last RELATION message of each table goes first, as
 *       the walsender would send it before that table's first change.</li>
 * </ul>
 *
 * <p>A confirmed position moves the slot ({@code pg_replication_slot_advance}) before the next call. No
 * position is reported between transactions: a call tells nothing about where the WAL ends that is safe
 * to skip to. Used by the polling thread only, but for {@link #confirm}.
 */
final class PgPeekChannel implements PgWalChannel {
    private static final Logger LOG = LoggerFactory.getLogger(PgPeekChannel.class);
    /** The pause after a call that returned all there was. */
    static final long POLL_INTERVAL_MILLIS = 200;
    /** Changes a call asks for at most, first; doubled while calls return nothing new. */
    static final int CHANGES_PER_CALL = 10_000;
    private static final int MAX_CHANGES_PER_CALL = 1 << 24;
    /** What a call may take on the server (it decodes all it returns before the first row comes). */
    static final String CALL_TIMEOUT = "5min";
    /**
     * The session's settings, again in each call's transaction: behind a pooler in transaction mode each
     * transaction may run on another server session, and pgoutput writes values as that session's settings say.
     */
    private static final String LOCAL_SETTINGS = PgConnections.LOCAL_SETTINGS
            + "; SET LOCAL statement_timeout = '" + CALL_TIMEOUT + "'";

    private final PostgresSourceConfig config;
    private final Connection connection;
    /** The decoder's position: what it has had. */
    private final Supplier<Lsn> delivered;
    private final ArrayDeque<ByteBuffer> ready = new ArrayDeque<>();
    /**
     * RELATION messages of left-out transactions, by table name (the newest relation of a table dropped and
     * created again), until the first transaction passed on.
     */
    private Map<String, ByteBuffer> staged = new LinkedHashMap<>();
    private PreparedStatement call;
    private ResultSet rows;
    private int rowsInCall;
    private boolean passedInCall;
    private int changesPerCall = CHANGES_PER_CALL;
    private long nextCallNanos;
    /** Whether the messages up to the next BEGIN belong to a transaction left out. */
    private boolean leavingOut;
    private Lsn advanced;
    private volatile Lsn toConfirm;

    /** Takes over {@code connection}, an ordinary one; {@code confirmedFlush} is the slot's position now. */
    PgPeekChannel(PostgresSourceConfig config, Connection connection, Lsn confirmedFlush, Supplier<Lsn> delivered)
            throws SQLException {
        this.config = config;
        this.connection = connection;
        this.delivered = delivered;
        this.advanced = confirmedFlush;
        connection.setAutoCommit(false); // a cursor, so that a call's rows are fetched a batch at a time
        // no named server-side statements, which a pooler in transaction mode does not keep between transactions
        connection.unwrap(PGConnection.class).setPrepareThreshold(0);
    }

    @Override
    @Nullable
    public ByteBuffer readPending() throws SQLException {
        while (ready.isEmpty()) {
            if (rows == null && !startCall()) {
                return null;
            }
            if (!rows.next()) {
                endCall();
                return null;
            }
            rowsInCall++;
            take(ByteBuffer.wrap(rows.getBytes(1)));
        }
        return ready.poll();
    }

    private void take(ByteBuffer m) {
        switch (m.get(0)) {
            case 'B':
                leavingOut = Lsn.valueOf(m.getLong(1)).compareTo(delivered.get()) < 0;
                if (!leavingOut) {
                    passOn(m);
                }
                return;
            case 'M':
                if (!leavingOut && (m.get(1) & 1) == 0 && Lsn.valueOf(m.getLong(2)).compareTo(delivered.get()) <= 0) {
                    return; // a message outside any transaction, delivered: its LSN is its record's end
                }
                break;
            case 'R':
                if (leavingOut && staged != null) {
                    staged.put(relationName(m), m);
                }
                break;
            default:
                break;
        }
        if (!leavingOut) {
            ready.add(m);
        }
        if (m.get(0) == 'C') {
            leavingOut = false;
        }
    }

    /** The schema and name of a RELATION message: Int32 id, then two NUL-terminated strings. */
    private static String relationName(ByteBuffer m) {
        ByteBuffer names = m.duplicate().position(5);
        return PgOutputMessages.string(names) + "\u0000" + PgOutputMessages.string(names);
    }

    /** Passes on {@code begin}, after the staged RELATION messages when it is the first transaction. */
    private void passOn(ByteBuffer begin) {
        if (staged != null) {
            ready.addAll(staged.values());
            staged = null;
        }
        passedInCall = true;
        ready.add(begin);
    }

    private boolean startCall() throws SQLException {
        if (System.nanoTime() < nextCallNanos) {
            return false;
        }
        advance(); // in a transaction of its own
        try (var settings = connection.createStatement()) {
            settings.execute(LOCAL_SETTINGS);
        }
        if (staged != null) {
            staged.clear(); // each call sends them again
        }
        call = connection.prepareStatement("SELECT data FROM pg_catalog.pg_logical_slot_peek_binary_changes(?, NULL, ?, "
                + "'proto_version', '1', 'publication_names', ?, 'messages', ?)");
        call.setFetchSize(1000);
        call.setString(1, config.slotName());
        call.setInt(2, changesPerCall);
        call.setString(3, PgLiterals.quoteIdentifier(config.publicationName()));
        call.setString(4, Boolean.toString(config.captureLogicalMessages()));
        rows = call.executeQuery();
        rowsInCall = 0;
        passedInCall = false;
        leavingOut = false;
        return true;
    }

    /**
     * Ends a call: at once another when this one was cut at its limit, asking for twice as much when it
     * passed nothing on (what was delivered since the slot's position fills the limit until a checkpoint
     * confirms it) and for as much as it returned and more when it did; otherwise the next after a pause.
     * The slot must still be where this source moved it: another session that moved it further made this
     * source skip what lies in between.
     */
    private void endCall() throws SQLException {
        closeCall();
        PgSlots.SlotState slot = PgSlots.find(connection, config.slotName());
        Lsn slotNow = slot == null ? null : slot.confirmedFlush;
        connection.commit();
        if (slotNow != null && slotNow.isAfter(advanced)) {
            throw new CdcException(CdcException.Kind.POSITION_LOST, "Replication slot '" + config.slotName()
                    + "' was moved to " + slotNow + " by another session, past " + advanced + " where this source "
                    + "left it ('" + PostgresOptions.WAL_TRANSPORT.key() + "' = 'sql-peek' does not hold the slot "
                    + "between its calls): the changes in between may not have been read. Let no other session "
                    + "use the slot, and restart the job without its state so that the tables are read again.");
        }
        boolean cut = rowsInCall >= changesPerCall;
        if (cut && !passedInCall) {
            if (changesPerCall >= MAX_CHANGES_PER_CALL) {
                throw new CdcException(CdcException.Kind.CONFIGURATION, "Slot '" + config.slotName() + "' holds more "
                        + "than " + MAX_CHANGES_PER_CALL + " changes this source delivered but no checkpoint "
                        + "confirmed: with '" + PostgresOptions.WAL_TRANSPORT.key() + "' = 'sql-peek' each call "
                        + "returns them again. Enable checkpointing, or checkpoint more often.");
            }
            changesPerCall = (int) Math.min((long) changesPerCall * 2, MAX_CHANGES_PER_CALL);
            nextCallNanos = 0;
        } else {
            changesPerCall = cut ? (int) Math.min((long) rowsInCall + CHANGES_PER_CALL, MAX_CHANGES_PER_CALL)
                    : changesPerCall;
            nextCallNanos = cut ? 0 : System.nanoTime() + POLL_INTERVAL_MILLIS * 1_000_000;
        }
    }

    /** Moves the slot to the position last confirmed, if it is past where the slot is. */
    private void advance() throws SQLException {
        Lsn wanted = toConfirm;
        if (wanted == null || !wanted.isAfter(advanced)) {
            return;
        }
        try (PreparedStatement s = connection.prepareStatement(
                "SELECT pg_catalog.pg_replication_slot_advance(?, ?::pg_lsn)")) {
            s.setString(1, config.slotName());
            s.setString(2, wanted.toString());
            s.execute();
        }
        connection.commit();
        advanced = wanted;
        changesPerCall = CHANGES_PER_CALL;
        LOG.debug("Advanced slot '{}' to {}", config.slotName(), wanted);
    }

    @Override
    public Lsn lastReceived() {
        return Lsn.ZERO;
    }

    @Override
    public void confirm(Lsn lsn) {
        Lsn current = toConfirm;
        if (current == null || lsn.isAfter(current)) {
            toConfirm = lsn;
        }
    }

    private void closeCall() {
        try {
            if (rows != null) {
                rows.close();
            }
            if (call != null) {
                call.close();
            }
        } catch (SQLException e) {
            LOG.debug("Closing a call on slot '{}' failed", config.slotName(), e);
        }
        rows = null;
        call = null;
    }

    @Override
    public void close() {
        closeCall();
        try {
            connection.close();
        } catch (SQLException | RuntimeException e) {
            LOG.debug("Closing the connection of slot '{}' failed", config.slotName(), e);
        }
    }
}
