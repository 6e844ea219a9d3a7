package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.DenseKeyChunks;
import io.rustcdc.flink.source.spi.TableDescription;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import javax.annotation.Nullable;

/**
 * A table's integer keys as {@link DenseKeyChunks} asks for them: the least and greatest key after one
 * ({@code min} and {@code max}, two index lookups), and the planner's estimate of the row count ({@code
 * pg_class.reltuples}, which {@code ANALYZE} and {@code VACUUM} set; -1 or 0 for a table never analysed, whose
 * ends are then counted).
 */
final class PgKeyRanges implements DenseKeyChunks.Keys {
    /** Whether a table is partitioned (read without {@code ONLY}: {@link PgTable#scanned}). */
    interface Kinds {
        boolean partitioned(TableId table) throws SQLException;
    }

    private final Connection connection;
    private final Kinds kinds;

    PgKeyRanges(Connection connection, Kinds kinds) {
        this.connection = connection;
        this.kinds = kinds;
    }

    @Override
    @Nullable
    public long[] range(TableDescription table, String keyColumn, @Nullable Long after) throws SQLException {
        String key = PgLiterals.quoteIdentifier(keyColumn);
        // the chunk queries' predicate, a literal of the key's own type: an oid key has no operator with a bigint
        return DenseKeyChunks.range(connection, "SELECT min(" + key + "), max(" + key + ") FROM "
                + PgTable.scanned(table.table(), kinds.partitioned(table.table())) + (after == null ? ""
                        : " WHERE " + PostgresSession.after(table, List.of(keyColumn), new Object[] {after})));
    }

    @Override
    public long rowEstimate(TableId table) throws SQLException {
        return DenseKeyChunks.rowEstimate(connection, "SELECT c.reltuples::bigint FROM pg_class c JOIN pg_namespace n "
                + "ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relname = ?", table.schema(), table.table());
    }
}
