package io.rustcdc.flink.mysql.binlog;

import static io.rustcdc.flink.mysql.binlog.BinlogBytes.event;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A query event's session sql_mode, read from its status variables as the servers write them. */
class Utf8QueriesTest {
    private static final long ANSI_QUOTES = 0x4L, NO_BACKSLASH_ESCAPES = 0x100000L;

    private static SqlModeQueryEventData query(byte[] status, String sql) throws IOException {
        byte[] data = BinlogBytes.queryData("shop", status, sql.getBytes(StandardCharsets.UTF_8));
        EventDeserializer events = ExactEventDeserializer.create();
        Event e = events.nextEvent(new ByteArrayInputStream(event(BinlogBytes.QUERY, 1, 900, data)));
        return e.getData();
    }

    @Test
    void theSessionsSqlModeComesAfterTheFlagsAndBeforeTheOtherVariables() throws IOException {
        long mode = ANSI_QUOTES | NO_BACKSLASH_ESCAPES | 1L << 40;
        byte[] status = new BinlogBytes.Bytes().le(0, 1).le(0x4000, 4).le(1, 1).le(mode, 8)
                .le(6, 1).le(3, 1).raw("std".getBytes(StandardCharsets.US_ASCII)).le(4, 1).le(33, 2).le(33, 2).le(8, 2)
                .done();
        SqlModeQueryEventData q = query(status, "ALTER TABLE \"caf\u00e9\" ADD COLUMN x INT");
        assertThat(q.isSqlModeWritten()).isTrue();
        assertThat(q.getSqlMode()).isEqualTo(mode);
        assertThat(q.getDatabase()).isEqualTo("shop");
        assertThat(q.getSql()).isEqualTo("ALTER TABLE \"caf\u00e9\" ADD COLUMN x INT");
        assertThat(q.getThreadId()).isEqualTo(5);
        assertThat(q.getExecutionTime()).isEqualTo(7);
        assertThat(q.getErrorCode()).isEqualTo(9);

        // without the flags before it
        assertThat(query(new BinlogBytes.Bytes().le(1, 1).le(ANSI_QUOTES, 8).done(), "BEGIN").getSqlMode())
                .isEqualTo(ANSI_QUOTES);
    }

    @Test
    void anEventWithoutItHasNone() throws IOException {
        SqlModeQueryEventData none = query(new byte[0], "BEGIN");
        assertThat(none.isSqlModeWritten()).isFalse();
        assertThat(none.getSqlMode()).isZero();
        assertThat(none.getSql()).isEqualTo("BEGIN");
        // a block that starts with another variable has none: the servers write it first after the flags
        byte[] catalog = new BinlogBytes.Bytes().le(0, 1).le(0, 4).le(6, 1).le(3, 1)
                .raw("std".getBytes(StandardCharsets.US_ASCII)).done();
        assertThat(query(catalog, "COMMIT").isSqlModeWritten()).isFalse();
    }
}
