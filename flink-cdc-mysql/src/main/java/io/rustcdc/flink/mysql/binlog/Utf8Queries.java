package io.rustcdc.flink.mysql.binlog;

import com.github.shyiko.mysql.binlog.event.QueryEventData;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDataDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.QueryEventDataDeserializer;
import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;
import java.io.IOException;

/**
 * Query events (DDL and transaction statements) with their database and text read as UTF-8, not in
 * the JVM's default character set, and the session's {@code sql_mode} ({@link SqlModeQueryEventData}).
 * The text is in the issuing session's character set; UTF-8 is what clients use nearly always, and
 * names in DDL are what the stream reads from it.
 *
 * <p>The {@code sql_mode} is a status variable ({@code Q_SQL_MODE_CODE}, 1: eight bytes, little-endian).
 * MySQL and MariaDB write {@code Q_FLAGS2_CODE} (0: four bytes) first and it second (their {@code
 * Query_log_event::write}; the later variables are not in the order of their codes on MariaDB), so a
 * block that starts with any other code has none.
 */
final class Utf8Queries implements EventDataDeserializer<QueryEventData> {
    /** Thread id (4), execution time (4), database name length (1), error code (2), status block length (2). */
    private static final int POST_HEADER = 13;
    private static final int Q_FLAGS2_CODE = 0;
    private static final int Q_SQL_MODE_CODE = 1;

    private final QueryEventDataDeserializer queries = new QueryEventDataDeserializer();

    @Override
    public QueryEventData deserialize(ByteArrayInputStream in) throws IOException {
        byte[] data = in.read(in.available());
        QueryEventData read = queries.deserialize(new BytesAsChars(new java.io.ByteArrayInputStream(data)));
        int statusLength = data.length < POST_HEADER ? 0 : (data[11] & 0xff) | (data[12] & 0xff) << 8;
        int at = POST_HEADER;
        int end = Math.min(data.length, POST_HEADER + statusLength);
        if (at < end && data[at] == Q_FLAGS2_CODE) {
            at += 1 + 4;
        }
        boolean written = at + 9 <= end && data[at] == Q_SQL_MODE_CODE;
        long sqlMode = 0;
        for (int i = 8; written && i >= 1; i--) {
            sqlMode = sqlMode << 8 | (data[at + i] & 0xffL);
        }
        SqlModeQueryEventData query = new SqlModeQueryEventData(sqlMode, written);
        query.setThreadId(read.getThreadId());
        query.setExecutionTime(read.getExecutionTime());
        query.setErrorCode(read.getErrorCode());
        query.setDatabase(RawTableMaps.utf8(read.getDatabase()));
        query.setSql(RawTableMaps.utf8(read.getSql()));
        return query;
    }
}
