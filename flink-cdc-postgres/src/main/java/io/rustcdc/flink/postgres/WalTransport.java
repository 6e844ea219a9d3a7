package io.rustcdc.flink.postgres;

import io.rustcdc.flink.source.CdcException;
import java.util.Locale;
import org.apache.flink.annotation.PublicEvolving;

/** How a PostgreSQL source reads its slot's changes ({@code wal.transport}). */
@PublicEvolving
public enum WalTransport {
    /** A replication connection ({@code START_REPLICATION ... LOGICAL}): the default. */
    STREAMING("streaming"),
    /**
     * Plain SQL on an ordinary connection ({@code pg_logical_slot_peek_binary_changes}, then {@code
     * pg_replication_slot_advance} for what a checkpoint holds): for connections that cannot carry a
     * replication stream, such as a pooler in transaction mode. The same events and positions, at a cost.
     */
    SQL_PEEK("sql-peek");

    private final String text;

    WalTransport(String text) {
        this.text = text;
    }

    /** The option's value for this transport. */
    public String text() {
        return text;
    }

    /** The transport an option value names, case-insensitively. */
    public static WalTransport parse(String value) {
        for (WalTransport t : values()) {
            if (t.text.equals(value.trim().toLowerCase(Locale.ROOT))) {
                return t;
            }
        }
        throw new CdcException(CdcException.Kind.CONFIGURATION, "Option '" + PostgresOptions.WAL_TRANSPORT.key()
                + "' is '" + value + "': use 'streaming' (a replication connection, the default) or 'sql-peek' (plain "
                + "SQL, for a connection that cannot replicate, such as a pooler in transaction mode)");
    }
}
