package io.rustcdc.flink.mysql.binlog;

import com.github.shyiko.mysql.binlog.event.QueryEventData;
import org.apache.flink.annotation.Internal;

/**
 * A query event with the {@code sql_mode} of the session that ran its statement, which decides how the
 * statement's text reads ({@code ANSI_QUOTES}: double quotes around names; {@code NO_BACKSLASH_ESCAPES}).
 * The client skips the status variables that carry it; {@link Utf8Queries} reads it.
 */
@Internal
public final class SqlModeQueryEventData extends QueryEventData {
    private static final long serialVersionUID = 1L;

    private final long sqlMode;
    private final boolean sqlModeWritten;

    SqlModeQueryEventData(long sqlMode, boolean sqlModeWritten) {
        this.sqlMode = sqlMode;
        this.sqlModeWritten = sqlModeWritten;
    }

    /** The session's {@code sql_mode} as its bits (the same in MySQL and MariaDB); 0 when the event has none. */
    public long getSqlMode() {
        return sqlMode;
    }

    /** Whether the event carries the session's {@code sql_mode} (MySQL 5.0 and later and MariaDB write it). */
    public boolean isSqlModeWritten() {
        return sqlModeWritten;
    }
}
