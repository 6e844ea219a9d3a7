package io.rustcdc.flink.sqlserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.sqlserver.testing.SqlServerDatabase;
import io.rustcdc.flink.sqlserver.testing.SqlServerExtension;
import io.rustcdc.flink.testing.StreamTestSupport;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every type the connector decodes, at its edges, equal on the snapshot path (a chunk read) and the
 * stream path (the change table), and equal to the value written (skipped without a server, see
 * {@link SqlServerDatabase}).
 */
@ExtendWith(SqlServerExtension.class)
@Timeout(300)
class SqlServerValuesITCase {
    /** Column, its type, the literal written and the value expected. */
    private static final Object[][] COLUMNS = {
        {"c_dec", "DECIMAL(38,10)", "1234567890123456789012345678.0123456789",
            new BigDecimal("1234567890123456789012345678.0123456789")},
        {"c_num", "NUMERIC(5,2)", "-999.99", new BigDecimal("-999.99")},
        {"c_money", "MONEY", "-922337203685477.5808", new BigDecimal("-922337203685477.5808")},
        {"c_smallmoney", "SMALLMONEY", "214748.3647", new BigDecimal("214748.3647")},
        {"c_datetime", "DATETIME", "'2026-07-20T12:34:56.997'", LocalDateTime.of(2026, 7, 20, 12, 34, 56, 997_000_000)},
        {"c_dt2", "DATETIME2(7)", "'9999-12-31T23:59:59.9999999'", LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_900)},
        {"c_dt2_3", "DATETIME2(3)", "'0001-01-01T00:00:00.055'", LocalDateTime.of(1, 1, 1, 0, 0, 0, 55_000_000)},
        {"c_smalldt", "SMALLDATETIME", "'2079-06-06T23:59:00'", LocalDateTime.of(2079, 6, 6, 23, 59)},
        {"c_dto", "DATETIMEOFFSET(7)", "'2026-07-20T12:34:56.1234567-14:00'", "2026-07-20T12:34:56.1234567-14:00"},
        {"c_time", "TIME(7)", "'23:59:59.9999999'", Duration.ofDays(1).minusNanos(100)},
        {"c_date", "DATE", "'0001-01-01'", LocalDate.of(1, 1, 1)},
        {"c_uuid", "UNIQUEIDENTIFIER", "'6F9619FF-8B86-D011-B42D-00C04FC964FF'",
            UUID.fromString("6F9619FF-8B86-D011-B42D-00C04FC964FF")},
        {"c_bin", "BINARY(4)", "0xDEAD00EF", new byte[] {(byte) 0xDE, (byte) 0xAD, 0, (byte) 0xEF}},
        {"c_varbin", "VARBINARY(MAX)", "0x00FF", new byte[] {0, (byte) 0xFF}},
        {"c_char", "CHAR(3)", "'ab'", "ab "},
        {"c_nvarchar", "NVARCHAR(40)", "N'😀 ünïcödé'", "😀 ünïcödé"},
        {"c_text", "VARCHAR(MAX)", "'long text'", "long text"},
        {"c_xml", "XML", "N'<a b=\"1\">x</a>'", "<a b=\"1\">x</a>"},
        {"c_bit", "BIT", "1", true},
        {"c_tinyint", "TINYINT", "255", 255L},
        {"c_bigint", "BIGINT", "-9223372036854775808", Long.MIN_VALUE},
        {"c_real", "REAL", "1.1", 1.1f},
        {"c_float", "FLOAT", "0.30000000000000004", 0.30000000000000004},
    };

    @Test
    void snapshotAndStreamDecodeEveryTypeAlike(SqlServerDatabase db) throws Exception {
        StringBuilder create = new StringBuilder("CREATE TABLE v_all (id INT PRIMARY KEY, c_rv ROWVERSION");
        StringBuilder insert = new StringBuilder("INSERT INTO v_all (id");
        StringBuilder values = new StringBuilder(") VALUES (%d");
        for (Object[] c : COLUMNS) {
            create.append(", ").append(c[0]).append(' ').append(c[1]).append(" NULL");
            insert.append(", ").append(c[0]);
            values.append(", ").append(c[2]);
        }
        db.execute(create.append(")").toString());
        db.enableTable("v_all");
        String row = insert.toString() + values + ")";
        db.execute(String.format(row, 1));
        SqlServerConnector connector = SqlServerConnector.create(db.config().build());
        TableId table = TableId.of(db.name(), "dbo", "v_all");
        List<ChangeEvent> read = new ArrayList<>();
        SqlServerPosition start;
        try (CatalogSession<SqlServerPosition, SqlServerChunkMark> s = connector.openSession()) {
            start = s.prepareStream(List.of(table), true);
            TableDescription d = s.describe(table);
            assertThat(d.shape().column("c_dec").orElseThrow().dataType()).isEqualTo("decimal(38,10)");
            assertThat(d.shape().column("c_dt2").orElseThrow().dataType()).isEqualTo("datetime2(7)");
            s.readChunk(d, List.of("id"), null, null, read::add);
        }
        try (ChangeStream<SqlServerPosition> stream = connector.openStream(start, TableFilter.all())) {
            db.execute(String.format(row, 2));
            Row streamed = StreamTestSupport.events(stream, 1).get(0).after();
            Row snapshot = read.get(0).after();
            for (Object[] c : COLUMNS) {
                String name = (String) c[0];
                assertThat(snapshot.get(name)).as("snapshot " + name).isEqualTo(c[3]);
                assertThat(streamed.get(name)).as("stream " + name).isEqualTo(c[3]);
            }
            assertThat((byte[]) streamed.get("c_rv")).hasSize(8);
        }
    }

    /** NULL in every column is NULL on both paths, not a default. */
    @Test
    void nullsStayNull(SqlServerDatabase db) throws Exception {
        Map<String, String> types = new LinkedHashMap<>();
        for (Object[] c : COLUMNS) {
            types.put((String) c[0], (String) c[1]);
        }
        StringBuilder create = new StringBuilder("v_null (id INT PRIMARY KEY");
        types.forEach((n, t) -> create.append(", ").append(n).append(' ').append(t).append(" NULL"));
        try (ChangeStream<SqlServerPosition> stream = db.streamFromNow(db.config().build(), create + ")")) {
            db.execute("INSERT INTO v_null (id) VALUES (1)");
            Row streamed = StreamTestSupport.events(stream, 1).get(0).after();
            for (String name : types.keySet()) {
                assertThat(streamed.isPresent(streamed.type().indexOf(name))).as(name).isTrue();
                assertThat(streamed.get(name)).as(name).isNull();
            }
        }
    }
}
