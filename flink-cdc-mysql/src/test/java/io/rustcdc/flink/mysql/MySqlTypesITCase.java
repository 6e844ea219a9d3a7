package io.rustcdc.flink.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.rustcdc.flink.mysql.testing.MySqlDatabase;
import io.rustcdc.flink.mysql.testing.MySqlExtension;
import io.rustcdc.flink.mysql.testing.MySqlFeatures;
import io.rustcdc.flink.mysql.testing.MySqlTestConfigs;
import io.rustcdc.flink.source.filter.TableFilter;
import io.rustcdc.flink.source.json.JsonRenderer;
import io.rustcdc.flink.source.model.ChangeEvent;
import io.rustcdc.flink.source.model.Op;
import io.rustcdc.flink.source.model.Row;
import io.rustcdc.flink.source.model.RowShape;
import io.rustcdc.flink.source.model.SpecialValue;
import io.rustcdc.flink.source.model.TableId;
import io.rustcdc.flink.source.model.ValueKind;
import io.rustcdc.flink.source.spi.CatalogSession;
import io.rustcdc.flink.source.spi.ChangeStream;
import io.rustcdc.flink.source.spi.TableDescription;
import io.rustcdc.flink.testing.StreamTestSupport;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every MySQL/MariaDB row of the type table, read by a snapshot chunk and from the binlog: both
 * give equal rows, and the values are the exact ones stored.
 */
@ExtendWith(MySqlExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class MySqlTypesITCase {
    private final Map<Integer, Row> snapshot = new HashMap<>();
    private final Map<Integer, Row> stream = new HashMap<>();
    private TableDescription description;
    private RowShape streamShape;
    private boolean mariaDb;

    @BeforeAll
    void captureBothWays(MySqlDatabase db) throws Exception {
        mariaDb = db.server().isMariaDb();
        if (!MySqlFeatures.snapshotAvailable(db.server())) {
            return; // each test is skipped, with the reason, by needsTheSnapshot
        }
        db.execute("CREATE TABLE all_types (id INT PRIMARY KEY, "
                + "c_tiny TINYINT, c_utiny TINYINT UNSIGNED, c_small SMALLINT, c_usmall SMALLINT UNSIGNED, "
                + "c_medium MEDIUMINT, c_umedium MEDIUMINT UNSIGNED, c_int INT, c_uint INT UNSIGNED, "
                + "c_big BIGINT, c_ubig BIGINT UNSIGNED, c_dec DECIMAL(65,30), c_dec2 DECIMAL(10,2), "
                + "c_float FLOAT, c_double DOUBLE, c_bit1 BIT(1), c_bit10 BIT(10), c_bit64 BIT(64), "
                + "c_char CHAR(5), c_varchar VARCHAR(20), c_text TEXT, c_latin1 VARCHAR(10) CHARACTER SET latin1, "
                + "c_binary BINARY(4), c_varbinary VARBINARY(10), c_blob BLOB, "
                + "c_enum ENUM('a','b','c'), c_set SET('x','y','z'), c_json JSON, "
                + "c_date DATE, c_datetime DATETIME, c_datetime6 DATETIME(6), c_ts TIMESTAMP(3) NULL, "
                + "c_time TIME, c_time2 TIME(2), c_time6 TIME(6), c_year YEAR, c_geom GEOMETRY)");
        MySqlConnector connector = MySqlConnector.create(MySqlTestConfigs.config(db));
        TableId table = TableId.of(db.name(), db.name(), "all_types");
        MySqlPosition start;
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            start = session.prepareStream(List.of(table), false);
        }
        db.execute("SET SESSION sql_mode = ''", "SET SESSION time_zone = '+02:00'",
                "INSERT INTO all_types VALUES (1, 127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295, "
                        + "9223372036854775807, 18446744073709551615, "
                        + "99999999999999999999999999999999999.999999999999999999999999999999, 12345678.90, 16777217, "
                        + "0.1e0 + 0.2e0, b'1', b'1010101010', "
                        + "b'1111111111111111111111111111111111111111111111111111111111111111', "
                        + "'ab   ', 'h\u00e9llo \uD83C\uDF89', 'line\\nnext', 'caf\u00e9', x'01', x'00ff', x'deadbeef', "
                        + "'b', 'x,z', "
                        + "'{\"a\": [1, 2.50]}', '2024-03-30', '2024-03-30 23:30:00', '2024-03-30 23:30:00.123456', "
                        + "'2024-03-31 01:30:00.123', '838:59:59', '-12:34:56.78', '-00:00:00.000001', 2024, "
                        + "ST_GeomFromText('POINT(1 2)'))",
                "INSERT INTO all_types VALUES (2, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0, "
                        + "-9223372036854775808, 0, -0.000000000000000000000000000001, -0.01, -3.4028235e38, "
                        + "-1.7976931348623157e308, b'0', b'0000000000', 0, '', '', '', '', '', '', '', 'a', '', 'null', "
                        + "'0000-00-00', '0000-00-00 00:00:00', '2024-00-05 10:00:00', '0000-00-00 00:00:00', "
                        + "'-838:59:59', '-00:00:00.01', '00:00:00', 0, ST_GeomFromText('POINT(0 0)'))",
                "INSERT INTO all_types (id) VALUES (3)",
                "INSERT INTO all_types (id, c_date, c_datetime6, c_ts, c_time2, c_year) VALUES (4, '2020-00-05', "
                        + "'1000-01-01 00:00:00.000001', '2038-01-19 05:14:07.999', '00:00:00.5', 1901)");
        try (CatalogSession<MySqlPosition, MySqlPosition> session = connector.openSession()) {
            description = session.describe(table);
            session.readChunk(description, List.of("id"), null, null,
                    e -> snapshot.put(((Long) e.after().get("id")).intValue(), e.after()));
        }
        try (ChangeStream<MySqlPosition> changes = connector.openStream(start, TableFilter.all())) {
            for (ChangeEvent e : StreamTestSupport.events(changes, 4)) {
                assertThat(e.op()).isEqualTo(Op.INSERT);
                stream.put(((Long) e.after().get("id")).intValue(), e.after());
                streamShape = e.shape();
            }
        }
    }

    @BeforeEach
    void needsTheSnapshot(MySqlDatabase db) {
        MySqlFeatures.assumeSnapshot(db.server());
    }

    @Test
    void snapshotAndStreamGiveEqualRowsAndShapes() {
        assertThat(snapshot.keySet()).containsExactlyInAnyOrder(1, 2, 3, 4);
        for (int id : snapshot.keySet()) {
            assertThat(render(stream.get(id))).as("row %d", id).isEqualTo(render(snapshot.get(id)));
            assertThat(stream.get(id)).as("row %d", id).isEqualTo(snapshot.get(id));
        }
        assertThat(streamShape).isEqualTo(description.shape());
    }

    @Test
    void shapeHasDeclaredTypesVerbatim() {
        RowShape shape = description.shape();
        assertThat(shape.primaryKey()).containsExactly("id");
        // MySQL 8.0.19+ no longer writes integer display widths
        assertThat(shape.column("c_ubig").get().dataType()).isEqualTo(mariaDb ? "bigint(20) unsigned" : "bigint unsigned");
        assertThat(shape.column("c_dec").get().dataType()).isEqualTo("decimal(65,30)");
        assertThat(shape.column("c_enum").get().dataType()).isEqualTo("enum('a','b','c')");
        assertThat(description.rowType().type(description.rowType().indexOf("c_ubig")).kind())
                .isEqualTo(ValueKind.UNSIGNED_BIGINT);
        assertThat(description.rowType().type(description.rowType().indexOf("c_ts")).kind())
                .isEqualTo(ValueKind.TIMESTAMP_TZ);
        assertThat(description.rowType().type(description.rowType().indexOf("c_time2")).precision()).isEqualTo(2);
    }

    @Test
    void integersAndNumbers() {
        Row r1 = snapshot.get(1);
        Row r2 = snapshot.get(2);
        assertThat(r1.get("c_tiny")).isEqualTo(127L);
        assertThat(r1.get("c_utiny")).isEqualTo(255L);
        assertThat(r1.get("c_usmall")).isEqualTo(65535L);
        assertThat(r1.get("c_umedium")).isEqualTo(16777215L);
        assertThat(r2.get("c_medium")).isEqualTo(-8388608L);
        assertThat(r1.get("c_uint")).isEqualTo(4294967295L);
        assertThat(r2.get("c_int")).isEqualTo(-2147483648L);
        assertThat(r1.get("c_big")).isEqualTo(Long.MAX_VALUE);
        assertThat(r2.get("c_big")).isEqualTo(Long.MIN_VALUE);
        assertThat(r1.get("c_ubig")).isEqualTo(new BigInteger("18446744073709551615"));
        assertThat(r2.get("c_ubig")).isEqualTo(BigInteger.ZERO);
        assertThat(r1.get("c_dec"))
                .isEqualTo(new BigDecimal("99999999999999999999999999999999999.999999999999999999999999999999"));
        assertThat(r2.get("c_dec")).isEqualTo(new BigDecimal("-0.000000000000000000000000000001"));
        assertThat(r1.get("c_dec2")).isEqualTo(new BigDecimal("12345678.90"));
        assertThat(r1.get("c_float")).isEqualTo(16777216f);
        assertThat(r2.get("c_float")).isEqualTo(-3.4028235e38f);
        assertThat(r1.get("c_double")).isEqualTo(0.30000000000000004);
        assertThat(r2.get("c_double")).isEqualTo(-1.7976931348623157e308);
        assertThat(r1.get("c_year")).isEqualTo(2024L);
        assertThat(r2.get("c_year")).isEqualTo(0L);
        assertThat(snapshot.get(4).get("c_year")).isEqualTo(1901L);
    }

    @Test
    void bitsTextAndBytes() {
        Row r1 = snapshot.get(1);
        Row r2 = snapshot.get(2);
        assertThat(r1.get("c_bit1")).isEqualTo(true);
        assertThat(r2.get("c_bit1")).isEqualTo(false);
        assertThat((byte[]) r1.get("c_bit10")).isEqualTo(new byte[] {0x02, (byte) 0xaa});
        assertThat((byte[]) r2.get("c_bit10")).isEqualTo(new byte[] {0, 0});
        assertThat((byte[]) r1.get("c_bit64")).isEqualTo(HexFormat.of().parseHex("ffffffffffffffff"));
        assertThat((byte[]) r2.get("c_bit64")).isEqualTo(new byte[8]);
        assertThat(r1.get("c_char")).isEqualTo("ab");
        assertThat(r1.get("c_varchar")).isEqualTo("h\u00e9llo \uD83C\uDF89");
        assertThat(r1.get("c_text")).isEqualTo("line\nnext");
        assertThat(r1.get("c_latin1")).isEqualTo("caf\u00e9");
        assertThat(r2.get("c_varchar")).isEqualTo("");
        assertThat((byte[]) r1.get("c_binary")).isEqualTo(new byte[] {1, 0, 0, 0});
        assertThat((byte[]) r2.get("c_binary")).isEqualTo(new byte[4]);
        assertThat((byte[]) r1.get("c_varbinary")).isEqualTo(new byte[] {0, (byte) 0xff});
        assertThat((byte[]) r1.get("c_blob")).isEqualTo(HexFormat.of().parseHex("deadbeef"));
        assertThat((byte[]) r2.get("c_blob")).isEmpty();
        assertThat(r1.get("c_enum")).isEqualTo("b");
        assertThat(r1.get("c_set")).isEqualTo("x,z");
        assertThat(r2.get("c_set")).isEqualTo("");
        // MariaDB keeps the JSON text as written; Oracle MySQL stores it binary and writes its own text
        assertThat(r1.get("c_json")).isEqualTo(mariaDb ? "{\"a\": [1, 2.50]}" : "{\"a\": [1, 2.5]}");
        assertThat(r2.get("c_json")).isEqualTo("null");
        assertThat(snapshot.get(3).get("c_json")).isNull();
        assertThat((byte[]) r1.get("c_geom")).isEqualTo(HexFormat.of().parseHex(
                "00000000" + "0101000000" + "000000000000f03f" + "0000000000000040"));
    }

    @Test
    void datesTimesAndTimestamps() {
        Row r1 = snapshot.get(1);
        Row r2 = snapshot.get(2);
        Row r4 = snapshot.get(4);
        assertThat(r1.get("c_date")).isEqualTo(LocalDate.of(2024, 3, 30));
        assertThat(r2.get("c_date")).isEqualTo(SpecialValue.zeroDate("0000-00-00"));
        assertThat(r4.get("c_date")).isEqualTo(SpecialValue.zeroDate("2020-00-05"));
        assertThat(r1.get("c_datetime")).isEqualTo(LocalDateTime.of(2024, 3, 30, 23, 30));
        assertThat(r2.get("c_datetime")).isEqualTo(SpecialValue.zeroDate("0000-00-00 00:00:00"));
        assertThat(r1.get("c_datetime6")).isEqualTo(LocalDateTime.of(2024, 3, 30, 23, 30, 0, 123_456_000));
        assertThat(r2.get("c_datetime6")).isEqualTo(SpecialValue.zeroDate("2024-00-05 10:00:00"));
        assertThat(r4.get("c_datetime6")).isEqualTo(LocalDateTime.of(1000, 1, 1, 0, 0, 0, 1000));
        // written at +02:00: the instant, not the session's wall clock
        assertThat(r1.get("c_ts")).isEqualTo(Instant.parse("2024-03-30T23:30:00.123Z"));
        assertThat(r2.get("c_ts")).isEqualTo(SpecialValue.zeroDate("0000-00-00 00:00:00"));
        assertThat(r4.get("c_ts")).isEqualTo(Instant.parse("2038-01-19T03:14:07.999Z"));
        assertThat(r1.get("c_time")).isEqualTo(Duration.parse("PT838H59M59S"));
        assertThat(r2.get("c_time")).isEqualTo(Duration.parse("-PT838H59M59S"));
        assertThat(r1.get("c_time2")).isEqualTo(Duration.parse("-PT12H34M56.78S"));
        assertThat(r2.get("c_time2")).isEqualTo(Duration.parse("-PT0.01S"));
        assertThat(r4.get("c_time2")).isEqualTo(Duration.parse("PT0.5S"));
        assertThat(r1.get("c_time6")).isEqualTo(Duration.parse("-PT0.000001S"));
    }

    private static String render(Row row) {
        ChangeEvent e = ChangeEvent.builder(Op.READ, TableId.of("d", "d", "t"),
                io.rustcdc.flink.source.model.SourceInfo.snapshot("mariadb", null)).after(row).build();
        return JsonRenderer.create().renderToString(e);
    }
}
