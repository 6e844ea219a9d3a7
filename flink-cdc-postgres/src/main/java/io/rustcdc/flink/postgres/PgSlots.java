package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.CdcException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.annotation.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replication slot: checked on every start, created only when the configuration allows it and
 * only for a first start. A slot that disappeared or was invalidated is a loud, final failure:
 * quietly creating a new one would restart capture at the current WAL position and skip
 * everything in between.
 */
final class PgSlots {
    private static final Logger LOG = LoggerFactory.getLogger(PgSlots.class);

    private PgSlots() {}

    /** What {@code pg_replication_slots} says of one slot. */
    static final class SlotState {
        final String plugin;
        final String database;
        @Nullable final Lsn confirmedFlush;
        @Nullable final String walStatus;

        SlotState(String plugin, String database, @Nullable Lsn confirmedFlush, @Nullable String walStatus) {
            this.plugin = plugin;
            this.database = database;
            this.confirmedFlush = confirmedFlush;
            this.walStatus = walStatus;
        }
    }

    @Nullable
    static SlotState find(Connection c, String slot) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT plugin, database, slot_type, "
                + "confirmed_flush_lsn::text, wal_status FROM pg_catalog.pg_replication_slots WHERE slot_name = ?")) {
            s.setString(1, slot);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                String lsn = rs.getString(4);
                return new SlotState(rs.getString(1) == null ? rs.getString(3) : rs.getString(1), rs.getString(2),
                        lsn == null ? null : Lsn.valueOf(lsn), rs.getString(5));
            }
        }
    }

    /** Whether a walsender holds the slot now (a stream runs on it); false when it does not exist. */
    static boolean isActive(Connection c, String slot) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(
                "SELECT active FROM pg_catalog.pg_replication_slots WHERE slot_name = ?")) {
            s.setString(1, slot);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /**
     * For a first start: the slot's position, creating the slot first when it is missing and the
     * configuration allows it.
     */
    static Lsn prepare(Connection c, PostgresSourceConfig config, int serverVersion) throws SQLException {
        SlotState state = find(c, config.slotName());
        if (state == null) {
            if (!config.createSlotIfMissing()) {
                throw new CdcException(CdcException.Kind.PREREQUISITE, "Replication slot '" + config.slotName()
                        + "' does not exist. Create it (as a role with REPLICATION) before the first start: SELECT "
                        + "pg_create_logical_replication_slot('" + config.slotName() + "', 'pgoutput');  Or let this "
                        + "source create it with '" + PostgresOptions.SLOT_CREATE_IF_MISSING.key() + "' = true, meant "
                        + "for first-time provisioning, never for replacing a lost slot.");
            }
            return create(c, config, serverVersion);
        }
        requireUsable(state, config);
        if (state.confirmedFlush == null) {
            // being created on another connection (a first start that a restart cut short, say): its creation
            // waits for the transactions running then to end, and ends; transient, so retried (final, it failed
            // a job restored from a savepoint taken during its first start)
            throw new CdcException(CdcException.Kind.CONNECTION, "Replication slot '" + config.slotName()
                    + "' is being created by another connection and has no confirmed position yet (its creation waits "
                    + "for the transactions running then to end); tried again");
        }
        return state.confirmedFlush;
    }

    /**
     * For every (re)start: the slot still exists, is not lost, and holds everything after {@code from}.
     * Returns what it found of the slot.
     */
    static SlotState requireResumable(Connection c, PostgresSourceConfig config, PostgresPosition from)
            throws SQLException {
        SlotState state = find(c, config.slotName());
        if (state == null) {
            throw missing(config, "position " + from);
        }
        requireUsable(state, config);
        if (state.confirmedFlush != null && state.confirmedFlush.isAfter(from.lsn())) {
            throw new CdcException(CdcException.Kind.POSITION_LOST, "Replication slot '" + config.slotName()
                    + "' has already confirmed position " + state.confirmedFlush + ", past the position " + from
                    + " this source resumes from: the changes in between are gone. This happens when a job is "
                    + "restored from an older checkpoint or savepoint than the newest one it confirmed. Restore "
                    + "from the newest checkpoint, keep more checkpoints before confirming, or restart without state.");
        }
        return state;
    }

    /** The slot gone (dropped): the changes after {@code since} ("position 0/16B3748") are lost. */
    static CdcException missing(PostgresSourceConfig config, String since) {
        return new CdcException(CdcException.Kind.POSITION_LOST, "Replication slot '" + config.slotName()
                + "' no longer exists in database " + config.database() + ". The changes after " + since
                + " that it retained are gone. Recreate the slot and restart the job without its state, so "
                + "that the tables are snapshotted again; this source never recreates a lost slot by itself.");
    }

    /** The slot invalidated by the server ({@code wal_status = lost}). */
    static CdcException invalidated(PostgresSourceConfig config) {
        return new CdcException(CdcException.Kind.POSITION_LOST, "Replication slot '" + config.slotName()
                + "' was invalidated (wal_status = lost): PostgreSQL removed WAL it still needed, usually "
                + "because of max_slot_wal_keep_size. The changes it held are gone. Drop and recreate the slot "
                + "and restart the job without its state, so that the tables are snapshotted again.");
    }

    private static void requireUsable(SlotState state, PostgresSourceConfig config) {
        if ("lost".equals(state.walStatus)) {
            throw invalidated(config);
        }
        if (!"pgoutput".equals(state.plugin)) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, "Replication slot '" + config.slotName()
                    + "' uses the output plugin '" + state.plugin + "'; this source needs a slot of 'pgoutput'. "
                    + "Use another slot name, or drop this slot if nothing else uses it.");
        }
        if (!config.database().equals(state.database)) {
            throw new CdcException(CdcException.Kind.PREREQUISITE, "Replication slot '" + config.slotName()
                    + "' belongs to database '" + state.database + "', not '" + config.database()
                    + "'. A logical slot serves one database: use a slot created in " + config.database() + ".");
        }
    }

    private static Lsn create(Connection c, PostgresSourceConfig config, int serverVersion) throws SQLException {
        if (config.failoverSlot() && serverVersion < 17) {
            throw new CdcException(CdcException.Kind.CONFIGURATION, "Option '" + PostgresOptions.SLOT_FAILOVER.key()
                    + "' needs PostgreSQL 17 or later; this server is " + serverVersion);
        }
        String sql = config.failoverSlot()
                ? "SELECT lsn::text FROM pg_catalog.pg_create_logical_replication_slot(?, 'pgoutput', false, false, true)"
                : "SELECT lsn::text FROM pg_catalog.pg_create_logical_replication_slot(?, 'pgoutput')";
        // the creation waits for every transaction running then to end, however long: not a dead connection
        int readTimeout = c.getNetworkTimeout();
        c.setNetworkTimeout(Runnable::run, 0);
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, config.slotName());
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                Lsn lsn = Lsn.valueOf(rs.getString(1));
                LOG.warn("Created replication slot '{}' (pgoutput{}) in database {} at {}, because '{}' is set. "
                                + "It retains WAL until this source confirms positions; drop it when the job is retired.",
                        config.slotName(), config.failoverSlot() ? ", failover" : "", config.database(), lsn,
                        PostgresOptions.SLOT_CREATE_IF_MISSING.key());
                return lsn;
            }
        } finally {
            c.setNetworkTimeout(Runnable::run, readTimeout);
        }
    }
}
