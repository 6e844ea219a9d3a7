package io.rustcdc.flink.mysql;

import com.github.shyiko.mysql.binlog.event.QueryEventData;
import io.rustcdc.flink.mysql.binlog.SqlModeQueryEventData;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What of a session's {@code sql_mode} changes how its statements read: {@code ANSI_QUOTES} makes a
 * double-quoted token a name, as a backquoted one is (else it is a string), and without {@code
 * NO_BACKSLASH_ESCAPES} a backslash in a string escapes the character after it (a quote, say).
 */
final class SqlMode {
    private static final Logger LOG = LoggerFactory.getLogger(SqlMode.class);
    /** Whether a query event without sql_mode was told of in the log (once per JVM: it is not expected at all). */
    private static final AtomicBoolean UNWRITTEN_TOLD = new AtomicBoolean();

    /** The bits of {@code sql_mode} in the binlog (the same in MySQL and MariaDB; the ANSI mode sets ANSI_QUOTES). */
    static final long ANSI_QUOTES = 0x4L;
    static final long NO_BACKSLASH_ESCAPES = 0x100000L;

    /** The servers' default: names in backquotes only, backslash escapes in strings. */
    static final SqlMode DEFAULT = new SqlMode(false, true);
    /** Names in backquotes only, no escapes in strings: the reading of text that is not a session's statement. */
    static final SqlMode PLAIN = new SqlMode(false, false);

    final boolean ansiQuotes;
    final boolean backslashEscapes;

    private SqlMode(boolean ansiQuotes, boolean backslashEscapes) {
        this.ansiQuotes = ansiQuotes;
        this.backslashEscapes = backslashEscapes;
    }

    static SqlMode of(long bits) {
        return new SqlMode((bits & ANSI_QUOTES) != 0, (bits & NO_BACKSLASH_ESCAPES) == 0);
    }

    /**
     * The mode a query event's statement ran in; the server's default (neither bit) when the event
     * carries none, which MySQL 5.0 and later and MariaDB always write.
     */
    static SqlMode of(QueryEventData query) {
        if (query instanceof SqlModeQueryEventData && ((SqlModeQueryEventData) query).isSqlModeWritten()) {
            return of(((SqlModeQueryEventData) query).getSqlMode());
        }
        if (UNWRITTEN_TOLD.compareAndSet(false, true)) {
            LOG.warn("A query event of the binlog carries no sql_mode, which MySQL 5.0 and later and MariaDB always "
                    + "write: its statement, and any other such, is read in the servers' default mode (double quotes "
                    + "around strings, backslash escapes in them), which may name a table other than the one it "
                    + "changed if the session ran with ANSI_QUOTES or NO_BACKSLASH_ESCAPES (the statement is not "
                    + "logged: its text may hold values)");
        }
        return DEFAULT;
    }
}
